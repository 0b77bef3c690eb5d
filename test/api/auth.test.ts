import { apiClient, expectProblem } from '../support/http';
import { GetCommand } from '../../shared/aws/dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { startDevIssuer } from '../../local/oidc-issuer';
import type { Platform } from '../../local/platform';
import { generateSigningKey, type WalletSigningKeys } from '../../local/signing-keys';
import { authRoutes } from '../../shared/wallet/auth/routes';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import type { AnyRoute } from '../../shared/http/route';
import { uuidv7 } from '../../shared/kernel/ids';
import { routes } from '../../shared/routes';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { walletKeys } from '../../shared/wallet/keys';
import { ledgerConsumer } from '../support/consumers';
import { apiKeyFor, idpTokenFor, staffAccount, staffLogin, staffToken, TEST_STAFF_PASSWORD, userTokenFor } from '../support/credentials';
import { settleQueues, startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * The auth API over HTTP, like a client: staff login and lockout, API key issue / list / revoke,
 * user tokens, IdP first contact, and the JWKS after a rotation (the platform starts with a
 * current and a previous signing key).
 */

let platform: Platform;
let base: string;
let signingKeys: WalletSigningKeys;
let platformStaff: string;
let tenantId: string;
let otherTenantId: string;
let tenantStaff: string;
let otherTenantStaff: string;
let fullKey: string;
let externalId: string;
let userId: string;

/** Until the manifest lists them: the auth and tenancy routes next to everything else, once each. */
const withRoutes = (...extra: AnyRoute[]): AnyRoute[] => [...routes, ...extra.filter((route) => !routes.some((r) => r.operationId === route.operationId))];
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>;
const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as Record<string, any>;

const api = apiClient(() => base);

beforeAll(async () => {
  const previous = await generateSigningKey();
  signingKeys = { current: await generateSigningKey(), previous };
  platform = await startTestPlatform({
    routes: withRoutes(...Object.values(authRoutes), ...Object.values(tenancyRoutes)),
    env: { WALLET_SIGNING_KEYS: JSON.stringify(signingKeys) },
  });
  base = platform.urls.public;
  platformStaff = await staffToken(platform, { role: 'platform' });
  [tenantId, otherTenantId] = [await createTenant(api, platformStaff, 'Auth A'), await createTenant(api, platformStaff, 'Auth B')];
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId });
  otherTenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId: otherTenantId });
  fullKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  externalId = `auth-${uuidv7()}`;
  const user = await api('POST', '/v1/users', { token: fullKey, body: { external_id: externalId } });
  expect(user.status, user.text).toBe(201);
  userId = user.body.id;
});

afterAll(() => platform?.stop());

describe('JWKS', () => {
  it('publishes the current and the previous public key, without private parts', async () => {
    const result = await api('GET', '/.well-known/jwks.json');

    expect(result.status).toBe(200);
    expect(result.headers.get('cache-control')).toBe('public, max-age=300');
    expect(result.body.keys.map((key: any) => key.kid)).toEqual([signingKeys.current.kid, signingKeys.previous!.kid]);
    for (const key of result.body.keys) expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
  });

  it('signs new tokens with the current key and still accepts one signed with the previous key', async () => {
    const { createLocalSigner, mintWalletToken } = await import('../../shared/wallet/auth/tokens');
    const staff = await staffAccount(platform, { role: 'tenant_staff', tenantId });
    const oldSigner = await createLocalSigner({ current: signingKeys.previous! });
    const oldToken = (await mintWalletToken(oldSigner, { use: 'staff', subject: staff.id, scopes: [...TENANT_SCOPES], ttlSeconds: 300, claims: { role: 'tenant_staff', tenant_id: tenantId } })).token;

    expect(headerOf(tenantStaff).kid).toBe(signingKeys.current.kid);
    expect(headerOf(oldToken).kid).toBe(signingKeys.previous!.kid);
    expect((await api('GET', '/v1/api_keys', { token: oldToken })).status).toBe(200);
  });
});

describe('staff sessions', () => {
  it('logs in with a 15-minute RS256 session token that is not cached', async () => {
    const staff = await staffAccount(platform, { role: 'tenant_staff', tenantId });

    const result = await api('POST', '/v1/auth/staff_sessions', { body: { email: staff.email, password: staff.password } });

    expect(result.status, result.text).toBe(201);
    expect(result.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(result.body).sort()).toEqual(['expires_at', 'token']);
    const payload = payloadOf(result.body.token);
    expect(payload).toMatchObject({ sub: staff.id, role: 'tenant_staff', tenant_id: tenantId, token_use: 'staff', aud: 'wallet' });
    expect(payload.exp - payload.iat).toBe(900);
    expect(Date.parse(result.body.expires_at)).toBe(payload.exp * 1000);
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const staff = await staffAccount(platform, { role: 'tenant_staff', tenantId });

    const wrong = await api('POST', '/v1/auth/staff_sessions', { body: { email: staff.email, password: 'not the password' } });
    const unknown = await api('POST', '/v1/auth/staff_sessions', { body: { email: `nobody-${uuidv7()}@example.test`, password: 'not the password' } });

    expectProblem(wrong, 'unauthenticated');
    expectProblem(unknown, 'unauthenticated');
    expect(unknown.body.detail).toBe(wrong.body.detail);
  });

  it('locks the account after 5 failures: 429 rate_limited with Retry-After, even for the right password', async () => {
    const staff = await staffAccount(platform, { role: 'tenant_staff', tenantId });
    for (let i = 0; i < 5; i += 1) {
      expectProblem(await api('POST', '/v1/auth/staff_sessions', { body: { email: staff.email, password: 'wrong password' } }), 'unauthenticated');
    }

    const locked = await api('POST', '/v1/auth/staff_sessions', { body: { email: staff.email, password: staff.password } });

    expectProblem(locked, 'rate_limited');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(890);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(locked.body.retryable).toBe(true);
  });

  it('refuses a malformed body with invalid_request', async () => {
    expectProblem(await api('POST', '/v1/auth/staff_sessions', { body: { email: 'a@b.test' } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/auth/staff_sessions', { body: { email: 'a@b.test', password: TEST_STAFF_PASSWORD, remember: true } }), 'invalid_request');
  });
});

describe('API keys', () => {
  it('issues a key once, lists it without its secret, and the key works', async () => {
    const created = await api('POST', '/v1/api_keys', { token: tenantStaff, body: { name: 'backend', env: 'sandbox', scopes: ['users:read', 'balances:read'] } });

    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toEqual({
      // The id is a canonical UUID; the key string carries it without hyphens (spec part 5 format).
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      key: expect.stringMatching(new RegExp(`^sk_sandbox_${created.body.id.replace(/-/g, '')}_[0-9a-f]{64}$`)),
      tenant_id: tenantId,
      name: 'backend',
      env: 'sandbox',
      scopes: ['users:read', 'balances:read'],
      client_id: null,
      created_at: expect.any(String),
    });
    const minted = await api('POST', '/v1/auth/user_tokens', { token: created.body.key, body: { user_external_id: externalId, scopes: ['balances:read'] } });
    expect(minted.status, minted.text).toBe(201);

    // The key's last use is queued by the request and written by the access-records worker.
    await settleQueues(platform);
    const listed = await api('GET', '/v1/api_keys', { token: tenantStaff });
    const entry = listed.body.data.find((key: any) => key.id === created.body.id);
    expect(entry).toMatchObject({ name: 'backend', revoked_at: null, created_by: expect.stringMatching(/^tenant_staff:/), last_used_at: expect.any(String) });
    expect(Date.parse(entry.expires_at) - Date.parse(entry.created_at)).toBe(365 * 86_400_000);
    expect(listed.text).not.toContain(created.body.key.slice(-64));
    expect(listed.text).not.toContain('secret_hash');
  });

  it('revokes idempotently, audited, and the revoking process refuses the key at once', async () => {
    const key = await api('POST', '/v1/api_keys', { token: tenantStaff, body: { scopes: ['users:read'] } });
    expect((await api('GET', '/v1/users', { token: key.body.key })).status).toBe(200);

    const first = await api('DELETE', `/v1/api_keys/${key.body.id}`, { token: tenantStaff });
    const again = await api('DELETE', `/v1/api_keys/${key.body.id}`, { token: tenantStaff });

    expect(first.status, first.text).toBe(200);
    expect(first.body.revoked_at).toEqual(expect.any(String));
    expect(again.body.revoked_at).toBe(first.body.revoked_at);
    expectProblem(await api('GET', '/v1/users', { token: key.body.key }), 'unauthenticated');
    const audit = await api('GET', '/v1/audit_log', { token: fullKey });
    expect(audit.status, audit.text).toBe(200);
    const actions = audit.body.data.filter((record: any) => record.target.id === key.body.id).map((record: any) => record.action);
    expect(actions.sort()).toEqual(['api_key.create', 'api_key.revoke']);
  });

  it('lets platform staff issue and list for a tenant they name, and only then', async () => {
    expectProblem(await api('POST', '/v1/api_keys', { token: platformStaff, body: { scopes: ['users:read'] } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/api_keys', { token: platformStaff, body: { tenant_id: uuidv7(), scopes: ['users:read'] } }), 'tenant_not_found');
    const created = await api('POST', '/v1/api_keys', { token: platformStaff, body: { tenant_id: otherTenantId, scopes: ['users:read'] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ tenant_id: otherTenantId, env: 'live' });

    const listed = await api('GET', `/v1/api_keys?tenant_id=${otherTenantId}`, { token: platformStaff });
    expect(listed.body.data.map((key: any) => key.id)).toContain(created.body.id);
    expectProblem(await api('GET', '/v1/api_keys', { token: platformStaff }), 'invalid_request');
  });

  it("keeps tenant staff to their own tenant: another tenant's id is missing, its keys are 404", async () => {
    const theirs = await api('POST', '/v1/api_keys', { token: otherTenantStaff, body: { scopes: ['users:read'] } });

    expectProblem(await api('POST', '/v1/api_keys', { token: tenantStaff, body: { tenant_id: otherTenantId, scopes: ['users:read'] } }), 'tenant_not_found');
    expectProblem(await api('GET', `/v1/api_keys?tenant_id=${otherTenantId}`, { token: tenantStaff }), 'tenant_not_found');
    expectProblem(await api('DELETE', `/v1/api_keys/${theirs.body.id}`, { token: tenantStaff }), 'not_found');
    expect((await api('GET', '/v1/api_keys', { token: tenantStaff })).body.data.map((key: any) => key.id)).not.toContain(theirs.body.id);
  });

  it('refuses scopes the staff member does not hold, platform scopes, and non-staff callers', async () => {
    const narrow = await staffToken(platform, { role: 'tenant_staff', tenantId, scopes: ['users:read'] });

    expectProblem(await api('POST', '/v1/api_keys', { token: narrow, body: { scopes: ['users:read', 'fees:manage'] } }), 'insufficient_scope');
    expectProblem(await api('POST', '/v1/api_keys', { token: tenantStaff, body: { scopes: ['platform:manage'] } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/api_keys', { token: fullKey, body: { scopes: ['users:read'] } }), 'forbidden');
    expectProblem(await api('GET', '/v1/api_keys', { token: fullKey }), 'forbidden');
  });

  it('pages newest first with a cursor', async () => {
    const staff = await staffToken(platform, { role: 'tenant_staff', tenantId: otherTenantId });
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await api('POST', '/v1/api_keys', { token: staff, body: { scopes: ['users:read'] } })).body.id);

    const first = await api('GET', '/v1/api_keys?limit=2', { token: staff });
    const second = await api('GET', `/v1/api_keys?limit=2&cursor=${first.body.next_cursor}`, { token: staff });

    const seen = [...first.body.data, ...second.body.data].map((key: any) => key.id);
    expect(seen.slice(0, 3)).toEqual([...ids].reverse());
    expectProblem(await api('GET', '/v1/api_keys?cursor=bm9wZQ', { token: staff }), 'invalid_request');
  });
});

describe('user tokens', () => {
  const mint = (body: Record<string, unknown>, token = fullKey) => api('POST', '/v1/auth/user_tokens', { token, body });

  it('mints a 900 s token for the user by default, acting only for that user', async () => {
    const result = await mint({ user_external_id: externalId, scopes: ['users:read', 'balances:read'] });

    expect(result.status, result.text).toBe(201);
    expect(result.body).toMatchObject({ token_type: 'Bearer', user_id: userId, scopes: ['users:read', 'balances:read'] });
    const payload = payloadOf(result.body.token);
    expect(payload).toMatchObject({ sub: userId, tenant_id: tenantId, token_use: 'user', scope: 'users:read balances:read' });
    expect(payload.exp - payload.iat).toBe(900);
    expect(payload.key_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await api('GET', `/v1/users/${userId}`, { token: result.body.token })).status).toBe(200);
    const other = await api('POST', '/v1/users', { token: fullKey, body: { external_id: `other-${uuidv7()}` } });
    expect((await api('GET', `/v1/users/${other.body.id}`, { token: result.body.token })).status).toBe(404);
  });

  it('accepts ttl_seconds from 60 to 3600 and refuses values outside', async () => {
    const ttl = async (seconds: number) => mint({ user_external_id: externalId, scopes: ['users:read'], ttl_seconds: seconds });
    for (const seconds of [60, 3600]) {
      const result = await ttl(seconds);
      expect(result.status, result.text).toBe(201);
      expect(payloadOf(result.body.token).exp - payloadOf(result.body.token).iat).toBe(seconds);
    }
    for (const seconds of [59, 3601, 0]) expectProblem(await ttl(seconds), 'invalid_request');
  });

  it('refuses a scope the key does not hold with scope_exceeds_key', async () => {
    const narrow = await apiKeyFor(platform, tenantId, ['users:read']);

    const result = await mint({ user_external_id: externalId, scopes: ['users:read', 'transfers:write'] }, narrow);

    expectProblem(result, 'scope_exceeds_key');
    expect(result.body.detail).toContain('transfers:write');
  });

  it('refuses a scope name that does not exist with scope_exceeds_key too: the key does not hold it', async () => {
    const result = await mint({ user_external_id: externalId, scopes: ['users:read', 'teleport:write'] });

    expectProblem(result, 'scope_exceeds_key');
    expect(result.body.detail).toContain('teleport:write');
  });

  it('refuses unknown scopes (as exceeding the key), missing scopes, unknown fields and an unknown user', async () => {
    expectProblem(await mint({ user_external_id: externalId, scopes: ['balances:write'] }), 'scope_exceeds_key');
    expectProblem(await mint({ user_external_id: externalId, scopes: [] }), 'invalid_request');
    expectProblem(await mint({ user_external_id: externalId, scopes: ['users:read'], user_id: userId }), 'invalid_request');
    expectProblem(await mint({ user_external_id: 'nobody', scopes: ['users:read'] }), 'user_not_found');
  });

  it('is minted with an API key only', async () => {
    const userToken = await userTokenFor(platform, fullKey, externalId, ['users:read']);
    for (const token of [userToken, tenantStaff, platformStaff, await idpTokenFor(platform, { sub: `s-${uuidv7()}`, tenantId })]) {
      expectProblem(await mint({ user_external_id: externalId, scopes: ['users:read'] }, token), 'forbidden');
    }
  });
});

describe('IdP tokens', () => {
  const mappingOf = async (external: string) => {
    const found = await localDocumentClient(platform.dynamodbEndpoint).send(new GetCommand({ TableName: platform.tables.wallet.name, Key: walletKeys.userExternal(tenantId, external) }));
    return found.Item;
  };

  it('provisions the wallet user on a first read through the first-contact queue, answering meanwhile as for no user yet', async () => {
    const sub = `idp-${uuidv7()}`;
    const token = await idpTokenFor(platform, { sub, tenantId });

    const first = await api('GET', '/v1/users', { token });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual([]);
    await settleQueues(platform);
    const second = await api('GET', '/v1/users', { token });

    const provisioned = (await mappingOf(`idp:${sub}`))?.user_id as string;
    expect(provisioned).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.body.data.map((user: any) => user.id)).toEqual([provisioned]);
    const user = await api('GET', `/v1/users/${provisioned}`, { token });
    expect(user.body).toMatchObject({ id: provisioned, external_id: `idp:${sub}`, kind: 'consumer' });
  });

  it('provisions the wallet user before the service runs on a first write', async () => {
    const sub = `idp-${uuidv7()}`;
    const token = await idpTokenFor(platform, { sub, tenantId });

    const device = await api('POST', '/v1/devices', { token, body: { platform: 'android', push_token: `push-${uuidv7()}` } });

    expect(device.status, device.text).toBe(201);
    const provisioned = (await mappingOf(`idp:${sub}`))?.user_id as string;
    expect(device.body.user_id).toBe(provisioned);
  });

  it('provisions no one on a route that refuses IdP users: the answer is 403, nothing is written', async () => {
    const sub = `idp-${uuidv7()}`;

    expectProblem(await api('POST', '/v1/auth/user_tokens', { token: await idpTokenFor(platform, { sub, tenantId }), body: { user_external_id: 'x', scopes: ['users:read'] } }), 'forbidden');

    expect(await mappingOf(`idp:${sub}`)).toBeUndefined();
  });

  it('refuses a token of another realm, a ledger consumer token and an unknown tenant', async () => {
    const other = await startDevIssuer({ port: 0, audience: 'ledger' });
    try {
      const now = Math.floor(Date.now() / 1000);
      const foreign = await other.mintToken({ iss: other.issuer, aud: 'wallet', sub: 'x', tenant_id: tenantId, iat: now, exp: now + 300 });
      const impostor = await other.mintToken({ iss: platform.issuer.issuer, aud: 'wallet', sub: 'x', tenant_id: tenantId, iat: now, exp: now + 300 });
      for (const token of [foreign, impostor, (await ledgerConsumer(platform)).token, await idpTokenFor(platform, { sub: 'x', tenantId: uuidv7() })]) {
        expectProblem(await api('GET', '/v1/users', { token }), 'unauthenticated');
      }
    } finally {
      await other.close();
    }
  });
});

describe('staff login helper', () => {
  it('logs in an account made by the operator path', async () => {
    const staff = await staffAccount(platform, { role: 'vendor_support' });

    const token = await staffLogin(platform, staff.email, staff.password);

    expect(payloadOf(token)).toMatchObject({ sub: staff.id, role: 'vendor_support', scope: '' });
    expect(payloadOf(token).tenant_id).toBeUndefined();
  });
});
