import { generateKeyPairSync, sign as rsaSign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KmsSigningPort } from '../../shared/aws/kms';
import { createOidcIssuer, MAX_TOKEN_REQUEST_BYTES } from '../../shared/http/oidc-issuer';
import type { AnyRoute } from '../../shared/http/route';
import { createConsumerAuthenticator } from '../../shared/ledger/consumer-auth';
import { kmsIssuerSigner, secretsManagerClients } from '../../shared/ledger/issuer';

/**
 * The ledger's embedded issuer as the LocalStack deployment runs it (functions/ledger/oidc-issuer.ts):
 * the shared protocol with its AWS ports (a KMS key that signs, one Secrets Manager secret per
 * client), here with an in-memory KMS key and secret store, served over loopback HTTP. Its tokens
 * must be what the ledger's consumer authenticator accepts, as Cognito's are.
 */

const PREFIX = 'wp-local-ledger/ledger-clients/';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const kms: KmsSigningPort = {
  // RSASSA_PKCS1_V1_5_SHA_256 over the RAW message, as KMS signs it.
  sign: async (_keyId, message) => new Uint8Array(rsaSign('sha256', message, privateKey)),
  publicKey: async () => new Uint8Array(publicKey.export({ format: 'der', type: 'spki' })),
};
const secrets = new Map<string, unknown>([[`${PREFIX}wallet`, { client_id: 'wallet', client_secret: 'the wallet secret' }]]);
const reads: string[] = [];
let failReads = false;
const readSecret = async (secretId: string): Promise<unknown> => {
  reads.push(secretId);
  if (failReads) throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
  if (!secrets.has(secretId)) throw Object.assign(new Error('not found'), { name: 'ResourceNotFoundException' });
  return secrets.get(secretId);
};

let server: Server;
let issuerUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
      const answer = (await issue({ method: request.method ?? 'GET', path: new URL(request.url ?? '/', issuerUrl).pathname, headers, body: body.length > MAX_TOKEN_REQUEST_BYTES ? undefined : body })) ?? {
        status: 404,
        headers: {},
        body: { error: 'not_found' },
      };
      response.writeHead(answer.status, answer.headers);
      response.end(JSON.stringify(answer.body));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Built on first use: the issuer URL is the server's, known once it listens. */
let protocol: ReturnType<typeof createOidcIssuer> | undefined;
const issue = (request: Parameters<ReturnType<typeof createOidcIssuer>>[0]) =>
  (protocol ??= createOidcIssuer({
    issuer: issuerUrl,
    audience: 'ledger',
    signer: kmsIssuerSigner(kms, 'arn:aws:kms:us-east-1:000000000000:key/test'),
    clients: secretsManagerClients(PREFIX, readSecret),
  }))(request);

async function token(clientId: string, secret: string) {
  const response = await fetch(`${issuerUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&scope=ledger%2Fpostings',
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('the embedded issuer (KMS key, Secrets Manager clients)', () => {
  it("issues client-credentials tokens the ledger's consumer authenticator accepts", async () => {
    const authenticate = createConsumerAuthenticator({
      issuer: issuerUrl,
      audience: 'ledger',
      findConsumerBySub: async (sub) => (sub === 'wallet' ? { id: 'consumer-wallet', name: 'wallet', sub } : undefined),
    });

    const issued = await token('wallet', 'the wallet secret');
    const jwks = (await (await fetch(`${issuerUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
    const header = JSON.parse(Buffer.from(issued.body.access_token.split('.')[0], 'base64url').toString());
    const principal = await authenticate({ headers: { authorization: `Bearer ${issued.body.access_token}` }, route: {} as AnyRoute });

    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(header).toEqual({ alg: 'RS256', kid: jwks.keys[0]!.kid });
    expect(principal).toMatchObject({ kind: 'ledger_consumer', consumerId: 'consumer-wallet' });
  });

  it('refuses a wrong secret and an unknown client alike, and reads an unknown client once', async () => {
    reads.length = 0;
    const wrong = await token('wallet', 'not the secret');
    const unknownFirst = await token('reports', 'anything');
    const unknownAgain = await token('reports', 'anything');

    for (const refused of [wrong, unknownFirst, unknownAgain]) expect(refused).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } });
    expect(reads).toEqual([`${PREFIX}reports`]);
  });

  it('answers 503 temporarily_unavailable when the client registry cannot be read', async () => {
    failReads = true;
    try {
      const answer = await token('other-client', 'anything');
      expect(answer.status).toBe(503);
      expect(answer.body.error).toBe('temporarily_unavailable');
    } finally {
      failReads = false;
    }
  });
});
