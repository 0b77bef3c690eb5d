import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { SignJWT, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { startDevIssuer, type DevIssuer } from '../../local/oidc-issuer';
import { freePort } from '../../local/ports';
import { ensureTables } from '../../local/tables';
import { createConsumerAuthenticator, type ConsumerIdentity } from '../../shared/ledger/consumer-auth';
import { ManualClock, systemClock } from '../../shared/kernel/clock';
import type { Authenticator } from '../../shared/http/handler';
import { uuidv7 } from '../../shared/kernel/ids';
import { createConsumerStore, type Consumer, type ConsumerStore } from '../../shared/ledger/consumers';
import { anyRoute, b64url, bearer, unauthenticatedCheck } from '../support/auth';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..', '..');
const tsx = join(repo, 'node_modules', '.bin', 'tsx');
const AUDIENCE = 'ledger';

let dataDir: string;
let issuer: DevIssuer;
/** Another realm: its own key and its own URL. */
let otherIssuer: DevIssuer;
let store: ConsumerStore;
let authenticate: Authenticator;
let consumer: Consumer;
/** Why the authenticator refused last, so each attack test proves the intended check fired. */
let lastRefusal = '';
const expectRefused = unauthenticatedCheck(() => lastRefusal);

const now = () => Math.floor(Date.now() / 1000);

/** What the dev issuer's token endpoint would sign for the test consumer, to vary one claim at a time. */
const claims = (overrides: JWTPayload = {}): JWTPayload => withoutUndefined({
  iss: issuer.issuer,
  sub: consumer.sub,
  client_id: consumer.sub,
  aud: AUDIENCE,
  scope: `${AUDIENCE}/postings`,
  token_use: 'access',
  iat: now(),
  nbf: now(),
  exp: now() + 600,
  jti: uuidv7(),
  ...overrides,
});
const withoutUndefined = (payload: JWTPayload): JWTPayload =>
  Object.fromEntries(Object.entries(payload).filter(([, value]) => value !== undefined));

async function tokenFromEndpoint(target: DevIssuer, clientId: string, secret: string, form: Record<string, string> = {}) {
  const response = await fetch(target.tokenUrl, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...form }).toString(),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'oidc-'));
  issuer = await startDevIssuer({ port: 0, dataDir, audience: AUDIENCE });
  otherIssuer = await startDevIssuer({ port: 0, audience: AUDIENCE });
  const tables = await ensureTables(inject('dynamodbEndpoint'), `oidc${uuidv7().slice(-8)}`);
  store = createConsumerStore(localDocumentClient(inject('dynamodbEndpoint')), tables.ledger.name, systemClock, uuidv7);
  consumer = await store.createConsumer({ name: 'wallet', sub: 'wallet-service' });
  authenticate = createConsumerAuthenticator({
    issuer: issuer.issuer,
    audience: AUDIENCE,
    findConsumerBySub: store.findConsumerBySub,
    onRefused: (reason) => (lastRefusal = reason),
  });
});

afterAll(async () => {
  await issuer?.close();
  await otherIssuer?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('ledger consumer authenticator', () => {
  beforeEach(() => {
    lastRefusal = '';
  });

  it('accepts a token from a real client-credentials exchange and resolves its consumer', async () => {
    const { client_secret } = issuer.registerClient(consumer.sub);
    const { status, body } = await tokenFromEndpoint(issuer, consumer.sub, client_secret);

    const principal = await authenticate(bearer(body.access_token));

    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(principal).toEqual({ kind: 'ledger_consumer', id: consumer.id, consumerId: consumer.id, scopes: new Set(['ledger']) });
  });

  it('accepts a Cognito-style token: no aud, a scope of the ledger resource server', async () => {
    const token = await issuer.mintToken(claims({ aud: undefined, scope: `${AUDIENCE}/postings` }));

    await expect(authenticate(bearer(token))).resolves.toMatchObject({ consumerId: consumer.id });
  });

  it('accepts an aud list that names the ledger', async () => {
    const token = await issuer.mintToken(claims({ aud: ['other', AUDIENCE] }));

    await expect(authenticate(bearer(token))).resolves.toMatchObject({ consumerId: consumer.id });
  });

  it('accepts a token expired less than the clock tolerance ago', async () => {
    const token = await issuer.mintToken(claims({ exp: now() - 10 }));

    await expect(authenticate(bearer(token))).resolves.toMatchObject({ consumerId: consumer.id });
  });

  it('refuses a request without an Authorization header', async () => {
    await expectRefused(authenticate({ headers: {}, route: anyRoute }), undefined, /bearer access token is required/);
  });

  it('refuses a credential that is not Bearer', async () => {
    await expectRefused(authenticate({ headers: { authorization: `Basic ${b64url('a:b')}` }, route: anyRoute }), /not a Bearer/);
  });

  it('refuses an sk_ API key', async () => {
    await expectRefused(authenticate(bearer('sk_sandbox_x_y')), undefined, /does not accept API keys/);
  });

  it('refuses a token with alg none', async () => {
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims())}.`;

    await expectRefused(authenticate(bearer(unsigned)), /not a signed JWT/);
    await expectRefused(authenticate(bearer(`${unsigned}c2ln`)), /"alg".*not allowed/);
  });

  it('refuses HS256 signed with the public key material as the HMAC secret', async () => {
    const jwks: any = await (await fetch(issuer.jwksUrl)).json();
    const header = b64url({ alg: 'HS256', typ: 'JWT', kid: issuer.signingKey.kid });
    const payload = b64url(claims());
    for (const secret of [JSON.stringify(jwks.keys[0]), jwks.keys[0].n as string]) {
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');

      await expectRefused(authenticate(bearer(`${header}.${payload}.${signature}`)), /"alg".*not allowed/);
    }
  });

  it('refuses a token signed by an unknown key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' }).sign(privateKey);

    await expectRefused(authenticate(bearer(token)), /no applicable key/);
  });

  it('refuses a token signed by another key under the issuer key id', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: issuer.signingKey.kid }).sign(privateKey);

    await expectRefused(authenticate(bearer(token)), /signature verification failed/);
  });

  it('refuses an expired token', async () => {
    const token = await issuer.mintToken(claims({ iat: now() - 7200, nbf: now() - 7200, exp: now() - 3600 }));

    await expectRefused(authenticate(bearer(token)), /"exp" claim/, /expired/);
  });

  it('refuses a token without exp', async () => {
    const token = await issuer.mintToken(claims({ exp: undefined }));

    await expectRefused(authenticate(bearer(token)), /missing required "exp"/);
  });

  it('refuses a token not yet valid', async () => {
    const token = await issuer.mintToken(claims({ nbf: now() + 600, exp: now() + 1200 }));

    await expectRefused(authenticate(bearer(token)), /"nbf" claim/);
  });

  it('refuses a token of another issuer', async () => {
    const token = await issuer.mintToken(claims({ iss: `${issuer.issuer}/` }));

    await expectRefused(authenticate(bearer(token)), /"iss" claim/);
  });

  it('refuses a token for another audience', async () => {
    await expectRefused(authenticate(bearer(await issuer.mintToken(claims({ aud: 'wallet' })))), /aud does not name/);
    await expectRefused(authenticate(bearer(await issuer.mintToken(claims({ aud: [] })))), /aud does not name/);
  });

  it('refuses a token without aud whose scopes are not the ledger resource server', async () => {
    for (const scope of ['wallet/postings ledgerx/postings', undefined, `${AUDIENCE}/`]) {
      const token = await issuer.mintToken(claims({ aud: undefined, scope }));

      await expectRefused(authenticate(bearer(token)), /no aud and no scope/);
    }
  });

  it('refuses an ID token', async () => {
    const token = await issuer.mintToken(claims({ token_use: 'id' }));

    await expectRefused(authenticate(bearer(token)), /token_use is id/);
  });

  it('refuses a valid token of another realm (another issuer instance)', async () => {
    const { client_secret } = otherIssuer.registerClient(consumer.sub);
    const { body } = await tokenFromEndpoint(otherIssuer, consumer.sub, client_secret);
    const impersonating = await otherIssuer.mintToken(claims());

    // Its key is not in our key set, so the signature check refuses both before the issuer check.
    await expectRefused(authenticate(bearer(body.access_token)), /no applicable key/);
    await expectRefused(authenticate(bearer(impersonating)), /no applicable key/);
  });

  it('refuses a valid token whose sub is not a consumer', async () => {
    const { client_secret } = issuer.registerClient('stranger');
    const { body } = await tokenFromEndpoint(issuer, 'stranger', client_secret);

    await expectRefused(authenticate(bearer(body.access_token)), /no ledger consumer/, /registered ledger consumer/);
  });

  it('answers 503, not 401, when the key set cannot be fetched', async () => {
    const offline = createConsumerAuthenticator({
      issuer: issuer.issuer,
      audience: AUDIENCE,
      // A port nothing listens on.
      jwksUrl: `http://127.0.0.1:${await freePort()}/.well-known/jwks.json`,
      findConsumerBySub: store.findConsumerBySub,
    });

    await expect(offline(bearer(await issuer.mintToken(claims())))).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
  });

  it('refuses a plain-http issuer that is not on loopback', () => {
    expect(() =>
      createConsumerAuthenticator({ issuer: 'http://idp.example.com', audience: AUDIENCE, findConsumerBySub: async () => undefined }),
    ).toThrow(/https/);
  });
});

describe('consumer lookup cache', () => {
  const counting = () => {
    const known = new Map<string, ConsumerIdentity>();
    const calls: string[] = [];
    return {
      known,
      calls,
      findConsumerBySub: async (sub: string) => {
        calls.push(sub);
        return known.get(sub);
      },
    };
  };

  it('remembers a found consumer for 60 seconds', async () => {
    const clock = new ManualClock(new Date());
    const lookup = counting();
    lookup.known.set(consumer.sub, consumer);
    const cached = createConsumerAuthenticator({ issuer: issuer.issuer, audience: AUDIENCE, clock, findConsumerBySub: lookup.findConsumerBySub });
    const token = await issuer.mintToken(claims());

    await cached(bearer(token));
    await cached(bearer(token));
    clock.advance(61_000);
    await cached(bearer(token));

    expect(lookup.calls).toHaveLength(2);
  });

  it("verifies an accepted token's signature once a minute, not on every call", async () => {
    const clock = new ManualClock(new Date());
    const lookup = counting();
    lookup.known.set(consumer.sub, consumer);
    const cached = createConsumerAuthenticator({ issuer: issuer.issuer, audience: AUDIENCE, clock, findConsumerBySub: lookup.findConsumerBySub });
    const token = await issuer.mintToken(claims({ exp: Math.floor(clock.now().getTime() / 1000) + 3600 }));
    const verify = vi.spyOn(globalThis.crypto.subtle, 'verify');
    try {
      await cached(bearer(token));
      await cached(bearer(token));
      await cached(bearer(token));
      expect(verify).toHaveBeenCalledTimes(1);
      clock.advance(61_000);
      await cached(bearer(token));
      expect(verify).toHaveBeenCalledTimes(2);
      // Another token is verified on its own, and a forged one is refused even while a good one is remembered.
      const forged = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.from('forged').toString('base64url')}`;
      await expectRefused(cached(bearer(forged)));
    } finally {
      verify.mockRestore();
    }
  });

  it('refuses a remembered token once it expires, inside the minute', async () => {
    const clock = new ManualClock(new Date());
    const lookup = counting();
    lookup.known.set(consumer.sub, consumer);
    const cached = createConsumerAuthenticator({ issuer: issuer.issuer, audience: AUDIENCE, clock, clockToleranceSeconds: 0, findConsumerBySub: lookup.findConsumerBySub });
    const token = await issuer.mintToken(claims({ exp: Math.floor(clock.now().getTime() / 1000) + 5 }));

    await expect(cached(bearer(token))).resolves.toMatchObject({ consumerId: consumer.id });
    clock.advance(6_000);

    await expectRefused(cached(bearer(token)), undefined, /expired/);
  });

  it('never remembers a missing consumer', async () => {
    const lookup = counting();
    const cached = createConsumerAuthenticator({ issuer: issuer.issuer, audience: AUDIENCE, findConsumerBySub: lookup.findConsumerBySub });
    const token = await issuer.mintToken(claims());

    await expectRefused(cached(bearer(token)));
    lookup.known.set(consumer.sub, consumer);

    await expect(cached(bearer(token))).resolves.toMatchObject({ consumerId: consumer.id });
  });
});

describe('dev OIDC issuer', () => {
  it('publishes discovery and its public key', async () => {
    const discovery: any = await (await fetch(`${issuer.issuer}/.well-known/openid-configuration`)).json();
    const jwks: any = await (await fetch(issuer.jwksUrl)).json();

    expect(discovery).toMatchObject({
      issuer: issuer.issuer,
      token_endpoint: issuer.tokenUrl,
      jwks_uri: issuer.jwksUrl,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(jwks.keys).toEqual([{ kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: issuer.signingKey.kid, alg: 'RS256', use: 'sig' }]);
  });

  it('signs the documented claims', async () => {
    const { client_secret } = issuer.registerClient('claims-check');
    const { body } = await tokenFromEndpoint(issuer, 'claims-check', client_secret, { scope: `${AUDIENCE}/postings ${AUDIENCE}/reads` });
    const [header, payload] = (body.access_token as string).split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));

    expect(header).toEqual({ alg: 'RS256', kid: issuer.signingKey.kid });
    expect(payload).toMatchObject({ iss: issuer.issuer, sub: 'claims-check', client_id: 'claims-check', aud: AUDIENCE, scope: `${AUDIENCE}/postings ${AUDIENCE}/reads` });
    expect(payload.exp - payload.iat).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
    expect(payload.jti).toEqual(expect.any(String));
  });

  it('authenticates a client by form fields too', async () => {
    const { client_secret } = issuer.registerClient('form-client');
    const response = await fetch(issuer.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'form-client', client_secret }).toString(),
    });

    expect(response.status).toBe(200);
  });

  it('refuses a bad secret with invalid_client', async () => {
    issuer.registerClient('bad-secret');

    const { status, headers, body } = await tokenFromEndpoint(issuer, 'bad-secret', 'wrong');

    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
    expect(headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('refuses an unknown client with invalid_client', async () => {
    const { status, body } = await tokenFromEndpoint(issuer, 'never-registered', 'whatever');

    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
  });

  it('refuses another grant type, a missing grant type and a foreign scope', async () => {
    const { client_secret } = issuer.registerClient('grants');

    expect((await tokenFromEndpoint(issuer, 'grants', client_secret, { grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    expect((await tokenFromEndpoint(issuer, 'grants', client_secret, { grant_type: '' })).body.error).toBe('invalid_request');
    expect((await tokenFromEndpoint(issuer, 'grants', client_secret, { scope: 'wallet/admin' })).body.error).toBe('invalid_scope');
  });

  it('refuses a token request that is not form-encoded', async () => {
    const response = await fetch(issuer.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toBe('invalid_request');
  });

  it('registers a client over /dev/clients idempotently, and refuses browser requests', async () => {
    const register = (headers: Record<string, string> = {}) =>
      fetch(`${issuer.issuer}/dev/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ client_id: 'http-client' }),
      });

    const first = await register();
    const second = await register();

    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual(await first.json());
    expect((await register({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await register({ 'content-type': 'text/plain' })).status).toBe(415);
  });

  it('keeps its key and clients across restarts, in owner-only files', async () => {
    const { client_secret } = issuer.registerClient('durable');
    const restarted = await startDevIssuer({ port: 0, dataDir, audience: AUDIENCE });
    try {
      expect(restarted.signingKey.kid).toBe(issuer.signingKey.kid);
      expect(restarted.registerClient('durable').client_secret).toBe(client_secret);
      for (const file of ['signing-key.json', 'clients.json']) {
        expect(statSync(join(dataDir, 'oidc', file)).mode & 0o777).toBe(0o600);
      }
      expect(JSON.parse(readFileSync(join(dataDir, 'oidc', 'signing-key.json'), 'utf8'))).toHaveProperty('d');
    } finally {
      await restarted.close();
    }
  });
});

describe('dev:token command', () => {
  let stateDir: string;
  const devToken = (args: string[], env: Record<string, string> = {}) =>
    run(tsx, [join(repo, 'scripts', 'dev-token.ts'), ...args], {
      cwd: repo,
      env: { ...process.env, DATA_DIR: stateDir, OIDC_TOKEN_URL: '', OIDC_CLIENT_ID: '', OIDC_CLIENT_SECRET: '', ...env },
    });

  beforeAll(() => {
    // What local/main.ts writes for a running platform with a dev issuer; this process stands in for it.
    stateDir = mkdtempSync(join(tmpdir(), 'dev-token-'));
    writeFileSync(
      join(stateDir, 'platform.json'),
      JSON.stringify({
        pid: process.pid,
        urls: { public: 'http://127.0.0.1:1', ledger: 'http://127.0.0.1:2', console: 'http://127.0.0.1:3' },
        dynamodb_endpoint: inject('dynamodbEndpoint'),
        tables: { ledger: { name: 'unused' }, wallet: { name: 'unused' } },
        oidc_issuer: issuer.issuer,
      }),
    );
  });

  afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

  it('prints only a token the ledger accepts, registering the client with the running dev issuer', async () => {
    const { stdout } = await devToken(['--client', consumer.sub]);

    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    await expect(authenticate(bearer(stdout.trim()))).resolves.toMatchObject({ consumerId: consumer.id });
  });

  it('exchanges given credentials against a token URL (the AWS path) without registering', async () => {
    const { client_secret } = issuer.registerClient(consumer.sub);

    const { stdout } = await devToken([], { OIDC_TOKEN_URL: issuer.tokenUrl, OIDC_CLIENT_ID: consumer.sub, OIDC_CLIENT_SECRET: client_secret });

    await expect(authenticate(bearer(stdout.trim()))).resolves.toMatchObject({ consumerId: consumer.id });
  });

  it('fails with one error line on a wrong secret', async () => {
    const error = (await devToken([], { OIDC_TOKEN_URL: issuer.tokenUrl, OIDC_CLIENT_ID: consumer.sub, OIDC_CLIENT_SECRET: 'wrong' }).catch(
      (e: unknown) => e,
    )) as { code: number; stdout: string; stderr: string };

    expect(error.code).toBe(1);
    expect(error.stdout).toBe('');
    expect(error.stderr).toMatch(/^error: .* answered 401: invalid_client/m);
  });
});
