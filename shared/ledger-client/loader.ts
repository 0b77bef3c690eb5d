import { readJsonSecret } from '../aws/secrets';
import { systemClock, type Clock } from '../kernel/clock';
import { config } from '../kernel/config';
import { AppError } from '../kernel/errors';
import { retryingOnce } from '../kernel/lazy';
import { logger } from '../kernel/log';
import { httpSend, type HttpSend } from '../http/outbound';
import { LedgerClient } from './client';

/** The ledger client's operations (its public methods; the class itself has private state). */
export type LedgerOperations = Pick<LedgerClient, keyof LedgerClient>;

export interface LedgerCredentials {
  clientId: string;
  clientSecret: string;
}

/** The secret's `{client_id, client_secret}`, both non-empty strings; read once per container (no schema library for two fields). */
function credentialsOf(value: unknown): LedgerCredentials | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { client_id: clientId, client_secret: clientSecret } = value as Record<string, unknown>;
  return typeof clientId === 'string' && clientId.length > 0 && typeof clientSecret === 'string' && clientSecret.length > 0 ? { clientId, clientSecret } : undefined;
}

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
  const credentials = credentialsOf(value);
  // A deployment error, not a passing one: a 500 with the reason in the log.
  if (!credentials) throw new Error('The ledger credentials secret is not {client_id, client_secret}');
  return credentials;
}

/** A token endpoint refusal re-reads the credentials, at most this often (a rotated client secret). */
const CREDENTIALS_REREAD_MS = 60_000;

export interface LedgerClientDeps {
  /** Default: Secrets Manager (shared/aws/secrets.ts). */
  readSecret?: (secretId: string) => Promise<unknown>;
  /** Default: node:http(s) (shared/http/outbound.ts). */
  send?: HttpSend;
  clock?: Clock;
}

/**
 * The container's ledger client, built once the credentials are read. When the token endpoint
 * refuses them (the client secret was rotated under a warm container), the next request reads
 * the secret again instead of failing until the container is recycled.
 */
export function ledgerClientLoader(deps: LedgerClientDeps = {}): () => Promise<LedgerClient> {
  const clock = deps.clock ?? systemClock;
  const baseSend = deps.send ?? httpSend;
  let loadedAt = 0;
  const loader = retryingOnce(async () => {
    const baseUrl = required(config.LEDGER_API_URL, 'LEDGER_API_URL');
    const tokenUrl = required(config.LEDGER_TOKEN_URL, 'LEDGER_TOKEN_URL');
    const credentials = await loadLedgerCredentials(deps.readSecret);
    loadedAt = clock.now().getTime();
    const observed: HttpSend = async (request) => {
      const response = await baseSend(request);
      const refused = (response.status === 400 || response.status === 401) && request.url === tokenUrl;
      if (refused && config.LEDGER_CREDENTIALS_SECRET_ARN && clock.now().getTime() - loadedAt >= CREDENTIALS_REREAD_MS) loader.forget();
      return response;
    };
    return new LedgerClient({ baseUrl, tokenUrl, ...credentials, scope: config.LEDGER_SCOPES, clock, send: observed });
  });
  return loader;
}

/** The ledger client's operations, each waiting for the client (and its credentials) first. */
export class DeferredLedger implements LedgerOperations {
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
  async listEvents(...args: Parameters<LedgerClient['listEvents']>) {
    return (await this.client()).listEvents(...args);
  }
  async rollup(...args: Parameters<LedgerClient['rollup']>) {
    return (await this.client()).rollup(...args);
  }
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new AppError('service_unavailable', `${name} is not configured.`);
  return value;
}

