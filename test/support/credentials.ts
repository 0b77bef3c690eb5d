import { type DocumentClient } from '../../shared/aws/dynamodb';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { systemClock, type Clock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { call } from './platform';

/**
 * Credentials for API tests, made the way an operator and an integrator would: API keys and staff
 * accounts written straight into the WalletTable (the operator's step), staff sessions and user
 * tokens through the auth API over HTTP, IdP tokens minted by the development issuer.
 *
 * The auth modules are imported lazily: they read configuration on first import, which must
 * happen after the platform has set the environment (a static import here would freeze it
 * before startTestPlatform runs).
 */

/** Development passwords for staff accounts made here; long enough for the password rule. */
export const TEST_STAFF_PASSWORD = 'correct horse battery staple';

async function withWalletTable<T>(platform: Platform, run: (deps: { client: DocumentClient; table: string }) => Promise<T>): Promise<T> {
  const client = localDocumentClient(platform.dynamodbEndpoint);
  return await run({ client, table: platform.tables.wallet.name });
}

/** A new API key of the tenant (which must exist), written directly; returns the full `sk_` key. */
export async function apiKeyFor(
  platform: Platform,
  tenantId: string,
  scopes: readonly string[],
  options: { env?: 'live' | 'sandbox'; clientId?: string; name?: string; /** Issued at this clock's now (a test that moves time past a key's year). */ clock?: Clock } = {},
): Promise<string> {
  const { createApiKeyRecord } = await import('../../shared/wallet/auth/api-keys');
  return withWalletTable(platform, async ({ client, table }) => {
    const { key } = await createApiKeyRecord(
      { client, table, clock: options.clock ?? systemClock, ids: uuidv7 },
      { tenantId, scopes, env: options.env ?? 'sandbox', clientId: options.clientId ?? null, name: options.name ?? 'test key', createdBy: 'system:test' },
    );
    return key;
  });
}

export interface StaffOptions {
  role: 'platform' | 'vendor_support' | 'partner_admin' | 'tenant_staff';
  /** Required for tenant_staff and partner_admin (an existing tenant). */
  tenantId?: string;
  /** Default: the role's default scopes. */
  scopes?: readonly string[];
  email?: string;
  password?: string;
}

/** A staff account written directly (the operator's command does the same); returns its id and login. */
export async function staffAccount(platform: Platform, options: StaffOptions): Promise<{ id: string; email: string; password: string }> {
  const { createStaff } = await import('../../shared/wallet/auth/staff');
  const email = options.email ?? `staff-${uuidv7()}@example.test`;
  const password = options.password ?? TEST_STAFF_PASSWORD;
  const account = await withWalletTable(platform, ({ client, table }) =>
    createStaff({ client, table, clock: systemClock, ids: uuidv7 }, { email, password, role: options.role, tenantId: options.tenantId, scopes: options.scopes }),
  );
  return { id: account.id, email: account.email, password };
}

/** Logs a staff member in over HTTP: POST /v1/auth/staff_sessions. */
export async function staffLogin(platform: Platform, email: string, password: string): Promise<string> {
  const result = await call(platform.urls.public, 'POST', '/v1/auth/staff_sessions', { body: { email, password } });
  if (result.status !== 201) throw new Error(`staff login failed: ${result.status} ${result.text}`);
  return result.body.token as string;
}

/** A new staff account of the role, logged in over HTTP: its session token. */
export async function staffToken(platform: Platform, options: StaffOptions): Promise<string> {
  const account = await staffAccount(platform, options);
  return staffLogin(platform, account.email, account.password);
}

/** A user token minted over HTTP with an API key (POST /v1/auth/user_tokens); the user must exist. */
export async function userTokenFor(
  platform: Platform,
  apiKey: string,
  externalId: string,
  scopes: readonly string[],
  options: { ttlSeconds?: number } = {},
): Promise<string> {
  const body = { user_external_id: externalId, scopes, ...(options.ttlSeconds === undefined ? {} : { ttl_seconds: options.ttlSeconds }) };
  const result = await call(platform.urls.public, 'POST', '/v1/auth/user_tokens', { token: apiKey, body });
  if (result.status !== 201) throw new Error(`user token failed: ${result.status} ${result.text}`);
  return result.body.token as string;
}

/** An access token of the identity provider realm (the development issuer) for a user of the tenant. */
export async function idpTokenFor(platform: Platform, options: { sub: string; tenantId: string; ttlSeconds?: number; claims?: Record<string, unknown> }): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return platform.issuer.mintToken({
    iss: platform.issuer.issuer,
    aud: 'wallet',
    sub: options.sub,
    tenant_id: options.tenantId,
    token_use: 'access',
    iat: now,
    nbf: now,
    exp: now + (options.ttlSeconds ?? 900),
    jti: uuidv7(),
    ...options.claims,
  });
}
