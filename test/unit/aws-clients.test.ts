import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AwsJsonClient, type AwsService } from '../../shared/aws/aws-json';
import type { HttpSend } from '../../shared/http/outbound';

/**
 * The wallet's two AWS dependencies outside DynamoDB: KMS signs wallet tokens, Secrets Manager holds
 * the ledger client credentials. Nothing local can stand in for either, so the platform's AWS
 * JSON client (shared/aws/aws-json.ts) talks to a loopback HTTP server that records the request it
 * sends and answers the way the service documents; the assertions are on those requests and on
 * what the code makes of the answers (a token that verifies with the stub's public key).
 */

interface Recorded {
  target: string;
  body: Record<string, unknown>;
  authorization: string;
}

type Answer = { status?: number; body: Record<string, unknown> };

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

/** A loopback stand-in for an AWS JSON-protocol service: records each request, answers with `answer`. */
async function stubService(service: AwsService, answer: (request: Recorded) => Answer) {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { target: String(req.headers['x-amz-target'] ?? ''), body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>, authorization: String(req.headers.authorization ?? '') };
      requests.push(recorded);
      const { status = 200, body } = answer(recorded);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'stub' }).end(JSON.stringify(body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new AwsJsonClient({
    service,
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: () => ({ accessKeyId: 'AKIDSTUB', secretAccessKey: 'stub' }),
    maxAttempts: 1,
  });
  return { requests, client };
}

const KEY_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const PREVIOUS_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/0000abcd-12ab-34cd-56ef-1234567890ab';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('the KMS token signer', () => {
  let keys: Map<string, { privateKey: KeyObject; publicKey: KeyObject }>;

  beforeAll(() => {
    keys = new Map([KEY_ARN, PREVIOUS_ARN].map((arn) => [arn, generateKeyPairSync('rsa', { modulusLength: 2048 })]));
  });

  /** What KMS answers: RSASSA_PKCS1_V1_5_SHA_256 over the raw message; public keys as DER SPKI. */
  const kms = (refuse?: () => boolean) =>
    stubService('kms', ({ target, body }) => {
      const pair = keys.get(String(body.KeyId));
      if (!pair || refuse?.()) return { status: 400, body: { __type: 'AccessDeniedException', message: 'not allowed' } };
      if (target === 'TrentService.Sign') {
        const signature = createSign('RSA-SHA256').update(Buffer.from(String(body.Message), 'base64')).sign(pair.privateKey);
        return { body: { KeyId: body.KeyId, Signature: signature.toString('base64'), SigningAlgorithm: body.SigningAlgorithm } };
      }
      if (target === 'TrentService.GetPublicKey') {
        const der = pair.publicKey.export({ format: 'der', type: 'spki' });
        return {
          body: { KeyId: body.KeyId, PublicKey: der.toString('base64'), KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY', SigningAlgorithms: ['RSASSA_PKCS1_V1_5_SHA_256'] },
        };
      }
      return { status: 400, body: { __type: 'UnsupportedOperationException', message: target } };
    });

  async function signerFromConfig(client: AwsJsonClient) {
    vi.stubEnv('WALLET_SIGNING_KEYS', undefined);
    vi.stubEnv('WALLET_SIGNING_KMS_KEY_ID', KEY_ARN);
    vi.stubEnv('WALLET_SIGNING_KMS_PREVIOUS_KEY_ID', PREVIOUS_ARN);
    vi.stubEnv('WALLET_ISSUER', 'urn:wallet:test');
    vi.resetModules();
    const tokens = await import('../../shared/wallet/auth/tokens');
    const { createKmsSigningPort } = await import('../../shared/aws/kms');
    return { tokens, signer: await tokens.loadTokenSigner({ kms: createKmsSigningPort(client) }) };
  }

  it('sends Sign with the configured key, RAW message type and RSASSA_PKCS1_V1_5_SHA_256, and the token verifies with the public key', async () => {
    const { requests, client } = await kms();
    const { tokens, signer } = await signerFromConfig(client);
    const { token } = await tokens.mintWalletToken(signer, { use: 'user', subject: 'user-1', scopes: ['balances:read'], ttlSeconds: 300, claims: { tenant_id: 't-1' } });

    expect(requests).toHaveLength(1);
    const [{ target, body, authorization }] = requests as [Recorded];
    expect(target).toBe('TrentService.Sign');
    expect(authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDSTUB\/\d{8}\/eu-west-1\/kms\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/);
    const signingInput = token.split('.').slice(0, 2).join('.');
    expect(body).toEqual({ KeyId: KEY_ARN, Message: Buffer.from(signingInput).toString('base64'), MessageType: 'RAW', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' });

    // Independently of our verifier: the stub's public key and jose.
    const { payload, protectedHeader } = await jwtVerify(token, keys.get(KEY_ARN)!.publicKey, { issuer: 'urn:wallet:test', audience: 'wallet', algorithms: ['RS256'] });
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: tokens.kmsKid(KEY_ARN), typ: 'JWT' });
    expect(payload).toMatchObject({ sub: 'user-1', tenant_id: 't-1', token_use: 'user' });
  });

  it('publishes both keys from GetPublicKey, and verifies its tokens with them', async () => {
    const { requests, client } = await kms();
    const { tokens, signer } = await signerFromConfig(client);
    const { keys: published } = await signer.jwks();

    expect(requests.map((r) => [r.target, r.body])).toEqual([
      ['TrentService.GetPublicKey', { KeyId: KEY_ARN }],
      ['TrentService.GetPublicKey', { KeyId: PREVIOUS_ARN }],
    ]);
    const expected = (arn: string) => {
      const jwk = keys.get(arn)!.publicKey.export({ format: 'jwk' });
      return { kty: 'RSA', n: jwk.n, e: jwk.e, kid: tokens.kmsKid(arn), alg: 'RS256', use: 'sig' };
    };
    expect(published).toEqual([expected(KEY_ARN), expected(PREVIOUS_ARN)]);
    await signer.jwks();
    expect(requests).toHaveLength(2); // once per container

    const { token } = await tokens.mintWalletToken(signer, { use: 'staff', subject: 'staff-1', scopes: [], ttlSeconds: 300, claims: { role: 'platform' } });
    await expect(tokens.verifyWalletToken(token, 'staff', { signer })).resolves.toMatchObject({ sub: 'staff-1', role: 'platform' });
  });

  it('answers service_unavailable when KMS refuses, and asks again on the next call', async () => {
    let refusals = 1;
    const { requests, client } = await kms(() => refusals-- > 0);
    const { signer } = await signerFromConfig(client);

    await expect(signer.jwks()).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(signer.jwks()).resolves.toMatchObject({ keys: [expect.anything(), expect.anything()] });
    expect(requests.filter((r) => r.target === 'TrentService.GetPublicKey').length).toBeGreaterThanOrEqual(3);
  });

  it('builds the KMS signer from the configuration alone, calling nothing until a token is signed or verified', async () => {
    vi.stubEnv('WALLET_SIGNING_KEYS', undefined);
    vi.stubEnv('WALLET_SIGNING_KMS_KEY_ID', KEY_ARN);
    vi.resetModules();
    const tokens = await import('../../shared/wallet/auth/tokens');
    await expect(tokens.loadTokenSigner()).resolves.toMatchObject({ kid: tokens.kmsKid(KEY_ARN) });
  });
});

describe('the ledger credentials', () => {
  const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:WalletLedgerCredentials-AbCdEf';

  const secrets = (value: () => unknown) =>
    stubService('secretsmanager', ({ target, body }) =>
      target === 'secretsmanager.GetSecretValue'
        ? { body: { ARN: body.SecretId, Name: 'WalletLedgerCredentials', SecretString: JSON.stringify(value()), VersionId: 'v1' } }
        : { status: 400, body: { __type: 'InvalidRequestException', message: target } },
    );

  async function runtimeWithSecret() {
    vi.stubEnv('LEDGER_CREDENTIALS_SECRET_ARN', SECRET_ARN);
    vi.stubEnv('LEDGER_CLIENT_ID', 'local-id-never-used');
    vi.stubEnv('LEDGER_CLIENT_SECRET', 'local-secret-never-used');
    vi.stubEnv('LEDGER_API_URL', 'https://ledger.example/dev');
    vi.stubEnv('LEDGER_TOKEN_URL', 'https://ledger.example/dev/oauth2/token');
    vi.stubEnv('LEDGER_SCOPES', 'ledger/postings');
    vi.resetModules();
    return {
      runtime: await import('../../shared/ledger-client/loader'),
      secrets: await import('../../shared/aws/secrets'),
    };
  }

  it('reads {client_id, client_secret} with GetSecretValue(SecretId = LEDGER_CREDENTIALS_SECRET_ARN)', async () => {
    const { requests, client } = await secrets(() => ({ client_id: 'wallet-client', client_secret: 's3cret' }));
    const { runtime, secrets: sm } = await runtimeWithSecret();

    await expect(runtime.loadLedgerCredentials((id) => sm.readJsonSecret(id, client))).resolves.toEqual({ clientId: 'wallet-client', clientSecret: 's3cret' });
    expect(requests.map(({ target, body }) => ({ target, body }))).toEqual([{ target: 'secretsmanager.GetSecretValue', body: { SecretId: SECRET_ARN } }]);
  });

  it('refuses a secret of another shape as a deployment error, and a failed read as service_unavailable', async () => {
    const { runtime } = await runtimeWithSecret();
    await expect(runtime.loadLedgerCredentials(async () => ({ client_id: 'x' }))).rejects.toThrow(/client_id, client_secret/);
    await expect(
      runtime.loadLedgerCredentials(async () => {
        throw new Error('throttled');
      }),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('reads the secret once per container, again after a failure, and again when the token endpoint refuses it', async () => {
    const { runtime } = await runtimeWithSecret();
    let reads = 0;
    let fail = true;
    let now = Date.parse('2030-01-01T00:00:00Z');
    const readSecret = async () => {
      reads += 1;
      if (fail) throw new Error('unreachable');
      return { client_id: 'wallet-client', client_secret: reads < 3 ? 'old' : 'new' };
    };
    const basics: string[] = [];
    const sendStub: HttpSend = async ({ url, headers }) => {
      if (url.endsWith('/oauth2/token')) {
        const basic = Buffer.from(String(headers.authorization).slice(6), 'base64').toString();
        basics.push(basic);
        return basic.endsWith(':new')
          ? { status: 200, headers: {}, text: JSON.stringify({ access_token: 'at', expires_in: 3600, token_type: 'Bearer' }) }
          : { status: 400, headers: {}, text: JSON.stringify({ error: 'invalid_client' }) };
      }
      return { status: 200, headers: {}, text: JSON.stringify({ ledger_id: 'l', rows: [], commodities: [], balanced: true }) };
    };
    const ledger = new runtime.DeferredLedger(runtime.ledgerClientLoader({ readSecret, send: sendStub, clock: { now: () => new Date(now) } }));

    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // the read failed
    fail = false;
    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // read 2: the old secret, refused
    expect(reads).toBe(2);
    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // refused again within the minute: no re-read
    expect(reads).toBe(2);
    now += 61_000;
    await expect(ledger.rollup('l')).rejects.toMatchObject({ code: 'service_unavailable' }); // refused after a minute: forget the client
    await expect(ledger.rollup('l')).resolves.toMatchObject({ balanced: true }); // read 3: the rotated secret
    await expect(ledger.rollup('l')).resolves.toMatchObject({ balanced: true });
    expect(reads).toBe(3);
    expect(basics.at(-1)).toBe('wallet-client:new');
  });

  it('takes LEDGER_CLIENT_ID / LEDGER_CLIENT_SECRET locally, without Secrets Manager', async () => {
    vi.stubEnv('LEDGER_CREDENTIALS_SECRET_ARN', undefined);
    vi.stubEnv('LEDGER_CLIENT_ID', 'local-id');
    vi.stubEnv('LEDGER_CLIENT_SECRET', 'local-secret');
    vi.resetModules();
    const runtime = await import('../../shared/ledger-client/loader');
    const read = vi.fn();
    await expect(runtime.loadLedgerCredentials(read)).resolves.toEqual({ clientId: 'local-id', clientSecret: 'local-secret' });
    expect(read).not.toHaveBeenCalled();
  });
});

describe('retryingOnce', () => {
  it('keeps a success and forgets a failure', async () => {
    const { retryingOnce } = await import('../../shared/kernel/lazy');
    let calls = 0;
    const load = retryingOnce(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first');
      return calls;
    });
    await expect(load()).rejects.toThrow('first');
    await expect(load()).resolves.toBe(2);
    await expect(load()).resolves.toBe(2);
    expect(calls).toBe(2);
  });
});
