import { createHmac } from 'node:crypto';
import { GetCommand, PutCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import { SignJWT, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { startDevIssuer, type DevIssuer } from '../../local/oidc-issuer';
import { generateSigningKey } from '../../local/signing-keys';
import { ensureTables } from '../../local/tables';
import { ApiKeyCache } from '../../shared/wallet/auth/api-key-verifier';
import { createApiKeyRecord, revokeApiKey } from '../../shared/wallet/auth/api-keys';
import { createWalletAuthenticator } from '../../shared/wallet/auth/credentials';
import { writeAccessRecord, type AccessRecorder } from '../../shared/wallet/access-records';
import type { Principal } from '../../shared/http/principal';
import { IDP_USER_SCOPES, TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { createStaff, createStaffSession } from '../../shared/wallet/auth/staff';
import { createLocalSigner, issueUserToken, mintWalletToken, RefusedCredential } from '../../shared/wallet/auth/tokens';
import type { TokenSigner } from '../../shared/wallet/deps';
import { ManualClock } from '../../shared/kernel/clock';
import { config } from '../../shared/kernel/config';
import type { AppError } from '../../shared/kernel/errors';
import type { Authenticator } from '../../shared/http/handler';
import { uuidv7 } from '../../shared/kernel/ids';
import { walletKeys } from '../../shared/wallet/keys';
import type { WalletDeps } from '../../shared/wallet/deps';
import { assertSelf } from '../../shared/wallet/principals';
import { anyRoute, b64url, bearer, unauthenticatedCheck } from '../support/auth';

/**
 * The wallet credential hook against DynamoDB Local: every way a credential can be wrong is a 401,
 * with the refusal reason checked so each test proves the intended check fired.
 */

const secondsOf = (clock: ManualClock) => Math.floor(clock.now().getTime() / 1000);

let client: DocumentClient;
let table: string;
let clock: ManualClock;
let signer: TokenSigner;
let runtime: WalletDeps;
let idp: DevIssuer;
let otherRealm: DevIssuer;
let tenantId: string;
let otherTenantId: string;
let userId: string;
let authenticate: Authenticator;
let lastRefusal = '';
const expectRefused = unauthenticatedCheck(() => lastRefusal);

async function putTenant(id = uuidv7()): Promise<string> {
  await client.send(new PutCommand({ TableName: table, Item: { ...walletKeys.tenant(id), entity: 'tenant', id, name: 'Test tenant', currency: 'USD' } }));
  return id;
}

async function putUser(tenant: string, externalId: string): Promise<string> {
  const id = uuidv7();
  await client.send(new PutCommand({ TableName: table, Item: { ...walletKeys.userExternal(tenant, externalId), user_id: id } }));
  return id;
}

/** What the access-records worker would write, written at once (no queue in these tests). */
const writtenAtOnce: AccessRecorder = { send: (record) => writeAccessRecord(runtime, record) };

const authenticator = (cache = new ApiKeyCache()) =>
  createWalletAuthenticator(runtime, {
    clock,
    apiKeyCache: cache,
    idp: { issuer: idp.issuer, audience: 'wallet' },
    records: writtenAtOnce,
    onRefused: (reason) => (lastRefusal = reason),
  });

/** Claims of a user token as the wallet would mint it, to vary one at a time. */
const userClaims = (overrides: JWTPayload = {}): JWTPayload =>
  Object.fromEntries(
    Object.entries({
      iss: config.WALLET_ISSUER,
      aud: 'wallet',
      sub: userId,
      tenant_id: tenantId,
      token_use: 'user',
      scope: 'balances:read',
      iat: secondsOf(clock),
      nbf: secondsOf(clock),
      exp: secondsOf(clock) + 600,
      ...overrides,
    }).filter(([, value]) => value !== undefined),
  );

const idpClaims = (overrides: JWTPayload = {}): JWTPayload =>
  Object.fromEntries(
    Object.entries({
      iss: idp.issuer,
      aud: 'wallet',
      sub: 'idp-known',
      tenant_id: tenantId,
      iat: secondsOf(clock),
      exp: secondsOf(clock) + 600,
      ...overrides,
    }).filter(([, value]) => value !== undefined),
  );

beforeAll(async () => {
  const tables = await ensureTables(inject('dynamodbEndpoint'), `cred${uuidv7().slice(-8)}`);
  client = localDocumentClient(inject('dynamodbEndpoint'));
  table = tables.wallet.name;
  clock = new ManualClock(new Date());
  signer = await createLocalSigner({ current: await generateSigningKey() });
  runtime = {
    client,
    table,
    clock,
    ids: uuidv7,
    signer: async () => signer,
    ledger: () => {
      throw new Error('no ledger here');
    },
  };
  idp = await startDevIssuer({ port: 0, audience: 'ledger', clock });
  otherRealm = await startDevIssuer({ port: 0, audience: 'ledger', clock });
  tenantId = await putTenant();
  otherTenantId = await putTenant();
  userId = await putUser(tenantId, 'user-1');
  await putUser(tenantId, 'idp:idp-known');
  authenticate = authenticator();
});

afterAll(async () => {
  await idp?.close();
  await otherRealm?.close();
});

beforeEach(() => {
  lastRefusal = '';
});

describe('bearer parsing', () => {
  it('refuses no header, a non-Bearer scheme and a credential that is neither a key nor a JWT', async () => {
    await expectRefused(authenticate({ headers: {}, route: anyRoute }), /no Authorization header/, /bearer credential is required/);
    await expectRefused(authenticate({ headers: { authorization: 'Basic dXNlcjpwdw==' }, route: anyRoute }), /not a Bearer/);
    await expectRefused(authenticate(bearer('hello')), /neither an API key nor a signed JWT/);
    await expectRefused(authenticate(bearer(`${'a'.repeat(9000)}.b.c`)), /too long/);
  });

  it('never reads identity headers a proxy might set', async () => {
    const headers = { 'x-tenant-id': tenantId, 'x-user-id': userId, 'x-forwarded-user': 'admin', 'x-amzn-oidc-identity': userId };

    await expectRefused(authenticate({ headers, route: anyRoute }), /no Authorization header/);
  });
});

describe('wallet tokens', () => {
  it('resolves a user token to a user_token principal confined to its user', async () => {
    const token = await signer.sign(userClaims({ scope: 'balances:read transfers:write' }));

    const principal = await authenticate(bearer(token));

    expect(principal).toEqual({ kind: 'user_token', id: userId, userId, tenantId, scopes: new Set(['balances:read', 'transfers:write']) });
    expect(() => assertSelf(principal, userId)).not.toThrow();
    expect(() => assertSelf(principal, uuidv7())).toThrow(expect.objectContaining({ code: 'user_not_found' }));
  });

  it('accepts a token expired less than the 30 s leeway ago', async () => {
    const token = await signer.sign(userClaims({ exp: secondsOf(clock) - 10 }));

    await expect(authenticate(bearer(token))).resolves.toMatchObject({ kind: 'user_token' });
  });

  it('refuses alg none', async () => {
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(userClaims())}.`;

    await expectRefused(authenticate(bearer(unsigned)), /neither an API key nor a signed JWT/);
    await expectRefused(authenticate(bearer(`${unsigned}c2ln`)), /"alg".*not allowed/);
  });

  it('refuses HS256 signed with the public key as the HMAC secret', async () => {
    const jwk = (await signer.jwks()).keys[0]!;
    const header = b64url({ alg: 'HS256', typ: 'JWT', kid: signer.kid });
    const payload = b64url(userClaims());
    for (const secret of [JSON.stringify(jwk), jwk.n!]) {
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');

      await expectRefused(authenticate(bearer(`${header}.${payload}.${signature}`)), /"alg".*not allowed/);
    }
  });

  it('refuses a token signed by an unknown key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const unknownKid = await new SignJWT(userClaims()).setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' }).sign(privateKey);
    const ourKid = await new SignJWT(userClaims()).setProtectedHeader({ alg: 'RS256', kid: signer.kid }).sign(privateKey);

    await expectRefused(authenticate(bearer(unknownKid)), /no applicable key/);
    await expectRefused(authenticate(bearer(ourKid)), /signature verification failed/);
  });

  it('refuses an expired token', async () => {
    const token = await signer.sign(userClaims({ iat: secondsOf(clock) - 3600, exp: secondsOf(clock) - 60 }));

    await expectRefused(authenticate(bearer(token)), /"exp" claim/, /expired/);
  });

  it('refuses a token not yet valid', async () => {
    const token = await signer.sign(userClaims({ nbf: secondsOf(clock) + 120, exp: secondsOf(clock) + 600 }));

    await expectRefused(authenticate(bearer(token)), /"nbf" claim/);
  });

  it('refuses a token of another issuer and one for another audience', async () => {
    await expectRefused(authenticate(bearer(await signer.sign(userClaims({ iss: 'urn:wallet:elsewhere' })))), /unknown issuer/);
    await expectRefused(authenticate(bearer(await signer.sign(userClaims({ aud: 'ledger' })))), /"aud" claim/);
  });

  it('refuses a token without token_use, with another token_use, or without exp', async () => {
    await expectRefused(authenticate(bearer(await signer.sign(userClaims({ token_use: undefined })))), /token_use is undefined/);
    await expectRefused(authenticate(bearer(await signer.sign(userClaims({ token_use: 'access' })))), /token_use is access/);
    await expectRefused(authenticate(bearer(await signer.sign(userClaims({ exp: undefined })))), /missing required "exp"/);
  });

  it('refuses a staff token whose role is unknown, and tenant staff without a tenant', async () => {
    const staff = (claims: JWTPayload) => signer.sign(userClaims({ token_use: 'staff', sub: uuidv7(), ...claims }));

    await expectRefused(authenticate(bearer(await staff({ role: 'root' }))), /role root/);
    await expectRefused(authenticate(bearer(await staff({ role: 'tenant_staff', tenant_id: undefined }))), /without tenant_id/);
  });
});

describe('IdP tokens', () => {
  it('resolves a realm token to an idp_user with the fixed scopes, whatever the token claims', async () => {
    const token = await idp.mintToken(idpClaims({ scope: 'platform:manage' }));

    const principal = await authenticate(bearer(token));

    expect(principal).toMatchObject({ kind: 'idp_user', tenantId, userId: expect.any(String) });
    expect([...principal.scopes].sort()).toEqual([...IDP_USER_SCOPES].sort());
  });

  it('refuses a valid token of another realm, and one claiming our issuer signed by the other realm', async () => {
    await expectRefused(authenticate(bearer(await otherRealm.mintToken(idpClaims({ iss: otherRealm.issuer })))), /unknown issuer/);
    await expectRefused(authenticate(bearer(await otherRealm.mintToken(idpClaims()))), /no applicable key/);
  });

  it('refuses a ledger consumer token of the same issuer (audience ledger)', async () => {
    await expectRefused(authenticate(bearer(await idp.mintToken(idpClaims({ aud: 'ledger' })))), /"aud" claim/);
  });

  it('refuses an expired token, a token without tenant_id, and a tenant that does not exist', async () => {
    await expectRefused(authenticate(bearer(await idp.mintToken(idpClaims({ exp: secondsOf(clock) - 60 })))), /"exp" claim/);
    await expectRefused(authenticate(bearer(await idp.mintToken(idpClaims({ tenant_id: undefined })))), /tenant_id claim/);
    await expectRefused(authenticate(bearer(await idp.mintToken(idpClaims({ tenant_id: uuidv7() })))), /does not exist/);
  });

  it('refuses HS256 with the realm public key, and an ID token', async () => {
    const header = b64url({ alg: 'HS256', typ: 'JWT', kid: idp.signingKey.kid });
    const payload = b64url(idpClaims());
    const signature = createHmac('sha256', idp.signingKey.publicJwk.n!).update(`${header}.${payload}`).digest('base64url');

    await expectRefused(authenticate(bearer(`${header}.${payload}.${signature}`)), /"alg".*not allowed/);
    await expectRefused(authenticate(bearer(await idp.mintToken(idpClaims({ token_use: 'id' })))), /token_use is id/);
  });
});

describe('API keys', () => {
  const issueKey = (overrides: Partial<Parameters<typeof createApiKeyRecord>[1]> = {}) =>
    createApiKeyRecord(runtime, { tenantId, env: 'sandbox', name: 'k', scopes: ['users:read', 'balances:read'], createdBy: 'system:test', ...overrides });
  const platformStaff: Principal = { kind: 'platform_staff', id: uuidv7(), scopes: new Set(['platform:manage']) };
  const readRecord = async (keyId: string) => (await client.send(new GetCommand({ TableName: table, Key: walletKeys.apiKey(keyId), ConsistentRead: true }))).Item!;

  it('resolves a key to an api_key principal of its tenant, client and scopes, a sandbox key as a sandbox credential', async () => {
    const clientId = uuidv7();
    const { key, record } = await issueKey({ clientId });

    const principal = await authenticate(bearer(key));

    expect(key).toMatch(/^sk_sandbox_[0-9a-f]{32}_[0-9a-f]{64}$/);
    expect(principal).toEqual({ kind: 'api_key', id: record.id, tenantId, clientId, sandbox: true, scopes: new Set(['users:read', 'balances:read']) });
  });

  it('stores only the hash of the secret', async () => {
    const { key, record } = await issueKey();
    const item = await readRecord(record.id);

    expect(JSON.stringify(item)).not.toContain(key.split('_')[3]);
    expect(item.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(item.expires_at) - Date.parse(item.created_at)).toBe(365 * 86_400_000);
  });

  it('refuses malformed keys', async () => {
    const { key } = await issueKey();
    const [, env, keyId, secret] = key.split('_');
    for (const bad of ['sk_', 'sk_sandbox_0199a1fc_secret', `sk_test_${keyId}_${secret}`, `sk_${env}_${keyId}_${secret}x`, `sk_${env}_${keyId!.toUpperCase()}_${secret}`, `sk_${env}_${keyId}${secret}`]) {
      await expectRefused(authenticate(bearer(bad)), /malformed API key/);
    }
  });

  it('refuses an unknown key id and a wrong secret with the same answer', async () => {
    const { key } = await issueKey();
    const [, env, keyId, secret] = key.split('_');
    const unknownId = await authenticate(bearer(`sk_${env}_${uuidv7().replace(/-/g, '')}_${secret}`)).catch((e: AppError) => e);
    expect(lastRefusal).toBe('unknown key id');
    const wrongSecret = await authenticate(bearer(`sk_${env}_${keyId}_${'0'.repeat(64)}`)).catch((e: AppError) => e);
    expect(lastRefusal).toBe('wrong secret');

    expect(unknownId).toBeInstanceOf(RefusedCredential);
    expect((unknownId as AppError).message).toBe((wrongSecret as AppError).message);
  });

  it('refuses the key with the other env segment', async () => {
    const { key } = await issueKey({ env: 'live' });

    await expectRefused(authenticate(bearer(key.replace('sk_live_', 'sk_sandbox_'))), /env segment sandbox/);
  });

  it('refuses a key past its expiry', async () => {
    const { key } = await issueKey();
    const later = new ManualClock(new Date(clock.now().getTime() + 366 * 86_400_000));
    const future = createWalletAuthenticator(runtime, { clock: later, apiKeyCache: new ApiKeyCache(), idp: null, onRefused: (reason) => (lastRefusal = reason) });

    await expectRefused(future(bearer(key)), /expired/, /expired/);
  });

  it('refuses a revoked key', async () => {
    const { key, record } = await issueKey();
    await revokeApiKey(runtime, platformStaff, record.id, uuidv7(), new ApiKeyCache());

    await expectRefused(authenticator()(bearer(key)), /revoked/, /revoked/);
  });

  it('keeps accepting a key revoked elsewhere until the 60 s cache entry runs out', async () => {
    const { key, record } = await issueKey();
    const cacheA = new ApiKeyCache();
    const processA = authenticator(cacheA);
    const processB = authenticator(new ApiKeyCache());
    await processA(bearer(key));
    await processB(bearer(key));

    await revokeApiKey(runtime, platformStaff, record.id, uuidv7(), cacheA);

    await expectRefused(processA(bearer(key)), /revoked/);
    await expect(processB(bearer(key))).resolves.toMatchObject({ id: record.id });
    clock.advance(59_000);
    await expect(processB(bearer(key))).resolves.toMatchObject({ id: record.id });
    clock.advance(2_000);
    await expectRefused(processB(bearer(key)), /revoked/);
  });

  it('does not let a cached key answer a wrong secret', async () => {
    const { key } = await issueKey();
    await authenticate(bearer(key));

    await expectRefused(authenticate(bearer(`${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`)), /wrong secret/);
  });

  it('records last use at most once a minute, without failing the request', async () => {
    const { key, record } = await issueKey();
    const lastUsed = async () => (await readRecord(record.id)).last_used_at as string | null;
    const settled = async (expected: string) => {
      for (let i = 0; i < 50 && (await lastUsed()) !== expected; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      return lastUsed();
    };
    const first = clock.now().toISOString();

    await authenticate(bearer(key));
    expect(await settled(first)).toBe(first);
    clock.advance(30_000);
    await authenticate(bearer(key));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await lastUsed()).toBe(first);
    clock.advance(31_000);
    await authenticate(bearer(key));
    const second = clock.now().toISOString();
    expect(await settled(second)).toBe(second);
  });

  it('refuses a wrong secret of a known key as it refuses an unknown key id, along one path (the times: npm run bench:auth)', async () => {
    const { key } = await issueKey();
    const [, env, keyId] = key.split('_');
    await authenticate(bearer(key)); // a cached key must not answer its wrong secrets another way
    const wrongSecret = `sk_${env}_${keyId}_${uuidv7().replace(/-/g, '').repeat(2)}`;
    const unknownId = `sk_${env}_${uuidv7().replace(/-/g, '')}_${uuidv7().replace(/-/g, '').repeat(2)}`;
    const [wrong, unknown] = [await authenticate(bearer(wrongSecret)).catch((e: AppError) => e), await authenticate(bearer(unknownId)).catch((e: AppError) => e)];
    // The same refusal, word for word: only the log says which it was.
    expect(wrong).toMatchObject({ code: 'unauthenticated' });
    expect({ code: (unknown as AppError).code, message: (unknown as AppError).message }).toEqual({ code: (wrong as AppError).code, message: (wrong as AppError).message });
  });
});

describe('user tokens', () => {
  const apiKey = (scopes: string[]): Principal => ({ kind: 'api_key', id: uuidv7().replace(/-/g, ''), tenantId, scopes: new Set(scopes) });

  it('mints a token for the user with the requested scopes and the default 900 s', async () => {
    const result = await issueUserToken(runtime, apiKey(['balances:read', 'transfers:write']), { user_external_id: 'user-1', scopes: ['balances:read'], ttl_seconds: 900 });
    const payload = JSON.parse(Buffer.from(result.token.split('.')[1]!, 'base64url').toString());
    const principal = await authenticate(bearer(result.token));

    expect(result).toMatchObject({ token_type: 'Bearer', user_id: userId, scopes: ['balances:read'] });
    expect(payload).toMatchObject({ sub: userId, tenant_id: tenantId, token_use: 'user', scope: 'balances:read', aud: 'wallet', iss: config.WALLET_ISSUER });
    expect(payload.exp - payload.iat).toBe(900);
    expect(Date.parse(result.expires_at)).toBe(payload.exp * 1000);
    expect(principal).toMatchObject({ kind: 'user_token', userId, tenantId, scopes: new Set(['balances:read']) });
  });

  it('refuses a scope the key does not hold with scope_exceeds_key', async () => {
    await expect(
      issueUserToken(runtime, apiKey(['balances:read']), { user_external_id: 'user-1', scopes: ['balances:read', 'transfers:write'], ttl_seconds: 900 }),
    ).rejects.toMatchObject({ code: 'scope_exceeds_key', status: 403 });
  });

  it("refuses an external id that is no user of the key's tenant", async () => {
    const other: Principal = { ...apiKey(['balances:read']), tenantId: otherTenantId };

    await expect(issueUserToken(runtime, other, { user_external_id: 'user-1', scopes: ['balances:read'], ttl_seconds: 900 })).rejects.toMatchObject({ code: 'user_not_found' });
  });
});

describe('staff sessions', () => {
  const password = 'a long enough password';
  const newStaff = (overrides: Partial<Parameters<typeof createStaff>[1]> = {}) =>
    createStaff(runtime, { email: `Staff-${uuidv7()}@Example.test`, password, role: 'tenant_staff', tenantId, ...overrides });

  it('logs in and resolves the session to the staff kind of the role, with its default scopes', async () => {
    const platform = await newStaff({ role: 'platform', tenantId: undefined });
    const admin = await newStaff({ role: 'partner_admin' });

    const session = await createStaffSession(runtime, { email: platform.email.toUpperCase(), password });
    const adminSession = await createStaffSession(runtime, { email: admin.email, password });
    const payload = JSON.parse(Buffer.from(session.token.split('.')[1]!, 'base64url').toString());

    expect(platform.email).toBe(platform.email.toLowerCase());
    expect(payload.exp - payload.iat).toBe(900);
    expect(payload).toMatchObject({ sub: platform.id, role: 'platform', token_use: 'staff' });
    expect(await authenticate(bearer(session.token))).toEqual({ kind: 'platform_staff', id: platform.id, scopes: new Set(['platform:manage', 'platform:read']) });
    expect(await authenticate(bearer(adminSession.token))).toMatchObject({ kind: 'partner_admin', tenantId, scopes: new Set(['support_access:manage', ...TENANT_SCOPES]) });
  });

  it('answers a wrong password and an unknown email alike (the times: npm run bench:auth)', async () => {
    const staff = await newStaff();
    const attempt = async (email: string) => (await createStaffSession(runtime, { email, password: 'not the password' }).catch((e: AppError) => e)) as AppError;
    const [wrong, unknown] = [await attempt(staff.email), await attempt(`nobody-${uuidv7()}@example.test`)];
    expect(wrong).toMatchObject({ code: 'unauthenticated' });
    expect({ code: unknown.code, message: unknown.message }).toEqual({ code: wrong.code, message: wrong.message });
  });

  it('locks the account for 15 minutes after 5 failures, then lets the right password in and resets the count', async () => {
    const staff = await newStaff();
    for (let i = 0; i < 5; i += 1) {
      await expect(createStaffSession(runtime, { email: staff.email, password: 'wrong password!' })).rejects.toMatchObject({ code: 'unauthenticated' });
    }

    const locked = await createStaffSession(runtime, { email: staff.email, password }).catch((e: AppError) => e);
    expect(locked).toMatchObject({ code: 'rate_limited', status: 429, headers: { 'retry-after': '900' } });
    clock.advance(15 * 60_000 + 1_000);
    await expect(createStaffSession(runtime, { email: staff.email, password })).resolves.toMatchObject({ token: expect.any(String) });
    for (let i = 0; i < 4; i += 1) await createStaffSession(runtime, { email: staff.email, password: 'wrong password!' }).catch(() => undefined);
    await expect(createStaffSession(runtime, { email: staff.email, password })).resolves.toMatchObject({ token: expect.any(String) });
  });

  it('refuses a taken email, an unknown tenant, a short password and a platform scope for tenant staff', async () => {
    const staff = await newStaff();

    await expect(newStaff({ email: staff.email.toUpperCase() })).rejects.toMatchObject({ code: 'conflict' });
    await expect(newStaff({ tenantId: uuidv7() })).rejects.toMatchObject({ code: 'tenant_not_found' });
    await expect(newStaff({ password: 'short' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(newStaff({ scopes: ['platform:manage'] })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(newStaff({ role: 'platform' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('signing key rotation', () => {
  it('publishes the current and previous key, and still verifies tokens of the previous key', async () => {
    const first = await generateSigningKey();
    const second = await generateSigningKey();
    const before = await createLocalSigner({ current: first });
    const oldToken = (await mintWalletToken(before, { use: 'user', subject: userId, scopes: [], ttlSeconds: 600, claims: { tenant_id: tenantId }, clock })).token;
    const after = await createLocalSigner({ current: second, previous: first });
    const rotatedRuntime = { ...runtime, signer: async () => after };
    const verify = createWalletAuthenticator(rotatedRuntime, { clock, idp: null, onRefused: (reason) => (lastRefusal = reason) });
    const newToken = (await mintWalletToken(after, { use: 'user', subject: userId, scopes: [], ttlSeconds: 600, claims: { tenant_id: tenantId }, clock })).token;

    expect((await after.jwks()).keys.map((key) => key.kid)).toEqual([second.kid, first.kid]);
    expect((await after.jwks()).keys.every((key) => key.d === undefined)).toBe(true);
    expect(JSON.parse(Buffer.from(newToken.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'RS256', kid: second.kid, typ: 'JWT' });
    await expect(verify(bearer(oldToken))).resolves.toMatchObject({ userId });
    await expect(verify(bearer(newToken))).resolves.toMatchObject({ userId });

    const third = await createLocalSigner({ current: await generateSigningKey(), previous: second });
    const verifyAfterTwo = createWalletAuthenticator({ ...runtime, signer: async () => third }, { clock, idp: null, onRefused: (reason) => (lastRefusal = reason) });
    await expectRefused(verifyAfterTwo(bearer(oldToken)), /no applicable key/);
  });
});
