import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { createDocumentClient } from '../aws/dynamodb';
import { readJsonSecret } from '../aws/secrets';
import { createWalletAuthenticator } from '../auth/credentials';
import type { Principal } from '../auth/principal';
import { loadTokenSigner, type TokenSigner } from '../auth/tokens';
import { platformClock, systemClock, type Clock } from '../clock';
import { config, tableName } from '../config';
import { AppError } from '../errors';
import { createHttpHandler, type Authenticator, type HttpResult, type RequestOf } from '../http/handler';
import type { AnyRoute } from '../http/route';
import { uuidv7, type IdGenerator } from '../ids';
import { LedgerClient } from '../ledger-client/client';
import { logger } from '../log';

/**
 * What the wallet, auth and console functions share, built once per Lambda container on first use
 * (never at import, so loading a handler needs no configuration): the WalletTable client, the
 * clock and id source, the token signer, the ledger client and the credential hook.
 */
export interface WalletRuntime {
  client: DynamoDBDocumentClient;
  table: string;
  clock: Clock;
  ids: IdGenerator;
  signer(): Promise<TokenSigner>;
  ledger(): WalletLedger;
}

/** The ledger client's operations (its public methods; the class itself has private state). */
export type WalletLedger = Pick<LedgerClient, keyof LedgerClient>;

let runtime: WalletRuntime | undefined;

export function walletRuntime(): WalletRuntime {
  if (runtime) return runtime;
  const client = createDocumentClient();
  let ledger: WalletLedger | undefined;
  runtime = {
    client,
    table: tableName('WALLET_TABLE'),
    clock: platformClock,
    ids: uuidv7,
    signer: retryingOnce(() => loadTokenSigner()),
    ledger: () => (ledger ??= new DeferredLedger(ledgerClientLoader())),
  };
  return runtime;
}

/**
 * `load` once per container; a failure is not remembered (the next caller tries again), so a
 * KMS or Secrets Manager hiccup during one request does not break the container for good.
 */
export function retryingOnce<T>(load: () => Promise<T>): (() => Promise<T>) & { forget(): void } {
  let pending: Promise<T> | undefined;
  const get = () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
  return Object.assign(get, { forget: () => (pending = undefined) });
}

export interface LedgerCredentials {
  clientId: string;
  clientSecret: string;
}

const secretShape = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) });

/**
 * The wallet's ledger client credentials: in AWS the Secrets Manager secret LEDGER_CREDENTIALS_SECRET_ARN
 * names (`{client_id, client_secret}`), locally LEDGER_CLIENT_ID / LEDGER_CLIENT_SECRET.
 */
export async function loadLedgerCredentials(read: (secretId: string) => Promise<unknown> = readJsonSecret): Promise<LedgerCredentials> {
  const secretArn = config.LEDGER_CREDENTIALS_SECRET_ARN;
  if (!secretArn) {
    return { clientId: required(config.LEDGER_CLIENT_ID, 'LEDGER_CLIENT_ID'), clientSecret: required(config.LEDGER_CLIENT_SECRET, 'LEDGER_CLIENT_SECRET') };
  }
  let value: unknown;
  try {
    value = await read(secretArn);
  } catch (error) {
    logger.error('reading the ledger credentials secret failed', { error: error as Error });
    throw new AppError('service_unavailable', 'The ledger credentials cannot be read right now; retry later.');
  }
  const parsed = secretShape.safeParse(value);
  // A deployment error, not a passing one: a 500 with the reason in the log.
  if (!parsed.success) throw new Error('The ledger credentials secret is not {client_id, client_secret}');
  return { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret };
}

/** A token endpoint refusal re-reads the credentials, at most this often (a rotated client secret). */
const CREDENTIALS_REREAD_MS = 60_000;

export interface LedgerClientDeps {
  /** Default: Secrets Manager (shared/aws/secrets.ts). */
  readSecret?: (secretId: string) => Promise<unknown>;
  fetch?: typeof fetch;
  clock?: Clock;
}

/**
 * The container's ledger client, built once the credentials are read. When the token endpoint
 * refuses them (the client secret was rotated under a warm container), the next request reads
 * the secret again instead of failing until the container is recycled.
 */
export function ledgerClientLoader(deps: LedgerClientDeps = {}): () => Promise<LedgerClient> {
  const clock = deps.clock ?? systemClock;
  const baseFetch = deps.fetch ?? fetch;
  let loadedAt = 0;
  const loader = retryingOnce(async () => {
    const baseUrl = required(config.LEDGER_API_URL, 'LEDGER_API_URL');
    const tokenUrl = required(config.LEDGER_TOKEN_URL, 'LEDGER_TOKEN_URL');
    const credentials = await loadLedgerCredentials(deps.readSecret);
    loadedAt = clock.now().getTime();
    const observed: typeof fetch = async (input, init) => {
      const response = await baseFetch(input, init);
      const refused = (response.status === 400 || response.status === 401) && String(input) === tokenUrl;
      if (refused && config.LEDGER_CREDENTIALS_SECRET_ARN && clock.now().getTime() - loadedAt >= CREDENTIALS_REREAD_MS) loader.forget();
      return response;
    };
    return new LedgerClient({ baseUrl, tokenUrl, ...credentials, scope: config.LEDGER_SCOPES, clock, fetch: observed });
  });
  return loader;
}

/** The ledger client's operations, each waiting for the client (and its credentials) first. */
export class DeferredLedger implements WalletLedger {
  constructor(private readonly client: () => Promise<LedgerClient>) {}

  async createLedger(...args: Parameters<LedgerClient['createLedger']>) {
    return (await this.client()).createLedger(...args);
  }
  async openAccount(...args: Parameters<LedgerClient['openAccount']>) {
    return (await this.client()).openAccount(...args);
  }
  async getAccount(...args: Parameters<LedgerClient['getAccount']>) {
    return (await this.client()).getAccount(...args);
  }
  async updateAccount(...args: Parameters<LedgerClient['updateAccount']>) {
    return (await this.client()).updateAccount(...args);
  }
  async post(...args: Parameters<LedgerClient['post']>) {
    return (await this.client()).post(...args);
  }
  async reserve(...args: Parameters<LedgerClient['reserve']>) {
    return (await this.client()).reserve(...args);
  }
  async voidPending(...args: Parameters<LedgerClient['voidPending']>) {
    return (await this.client()).voidPending(...args);
  }
  async getTransaction(...args: Parameters<LedgerClient['getTransaction']>) {
    return (await this.client()).getTransaction(...args);
  }
  async listEntries(...args: Parameters<LedgerClient['listEntries']>) {
    return (await this.client()).listEntries(...args);
  }

  async listTransactions(...args: Parameters<LedgerClient['listTransactions']>) {
    return (await this.client()).listTransactions(...args);
  }
  async rollup(...args: Parameters<LedgerClient['rollup']>) {
    return (await this.client()).rollup(...args);
  }
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new AppError('service_unavailable', `${name} is not configured.`);
  return value;
}

export interface WalletCall<R> {
  request: RequestOf<R>;
  principal: Principal;
  runtime: WalletRuntime;
}

/** The wallet's handler factory: the shared middleware stack with the wallet credential hook. */
export function walletHandler<R extends AnyRoute>(route: R, serve: (call: WalletCall<R>) => Promise<HttpResult>) {
  let verifier: Authenticator | undefined;
  const authenticate: Authenticator = (request) => {
    verifier ??= createWalletAuthenticator(walletRuntime());
    return verifier(request);
  };
  return createHttpHandler(
    route,
    async (request) => serve({ request: request as RequestOf<R>, principal: request.principal, runtime: walletRuntime() }),
    { authenticate },
  );
}

/**
 * The tenant a tenant-bound principal acts for. Platform staff name the tenant explicitly where a
 * route allows it. Refuses: tenant_not_found when none can be determined.
 */
export function tenantOf(principal: Principal, explicit?: string): string {
  if (principal.tenantId) {
    // A tenant credential naming another tenant sees it as missing, never as forbidden.
    if (explicit && explicit !== principal.tenantId) throw new AppError('tenant_not_found', `No tenant ${explicit}.`);
    return principal.tenantId;
  }
  if (explicit) return explicit;
  throw new AppError('invalid_request', 'tenant_id is required for a platform credential.');
}

/** A user token or IdP token acts only on its own user; anything else looks missing. */
export function assertSelf(principal: Principal, userId: string): void {
  if (principal.userId && principal.userId !== userId) throw new AppError('user_not_found', `No user ${userId}.`);
}
