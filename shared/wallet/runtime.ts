import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../aws/dynamodb';
import { createWalletAuthenticator } from '../auth/credentials';
import type { Principal } from '../auth/principal';
import { loadTokenSigner, type TokenSigner } from '../auth/tokens';
import { systemClock, type Clock } from '../clock';
import { config, tableName } from '../config';
import { AppError } from '../errors';
import { createHttpHandler, type Authenticator, type HttpResult, type RequestOf } from '../http/handler';
import type { AnyRoute } from '../http/route';
import { uuidv7, type IdGenerator } from '../ids';
import { LedgerClient } from '../ledger-client/client';

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
  ledger(): LedgerClient;
}

let runtime: WalletRuntime | undefined;

export function walletRuntime(): WalletRuntime {
  if (runtime) return runtime;
  const client = createDocumentClient();
  let signer: Promise<TokenSigner> | undefined;
  let ledger: LedgerClient | undefined;
  runtime = {
    client,
    table: tableName('WALLET_TABLE'),
    clock: systemClock,
    ids: uuidv7,
    signer: () => (signer ??= loadTokenSigner()),
    ledger: () =>
      (ledger ??= new LedgerClient({
        baseUrl: required(config.LEDGER_API_URL, 'LEDGER_API_URL'),
        tokenUrl: required(config.LEDGER_TOKEN_URL, 'LEDGER_TOKEN_URL'),
        clientId: required(config.LEDGER_CLIENT_ID, 'LEDGER_CLIENT_ID'),
        clientSecret: required(config.LEDGER_CLIENT_SECRET, 'LEDGER_CLIENT_SECRET'),
        scope: config.LEDGER_SCOPES,
        clock: systemClock,
      })),
  };
  return runtime;
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
