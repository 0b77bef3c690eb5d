import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  SignJWT,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
} from 'jose';
import type { Clock } from '../shared/kernel/clock';
import { CLIENT_ID_PATTERN, createOidcIssuer, ISSUER_ALG, json, MAX_TOKEN_REQUEST_BYTES, type IssuerResponse } from '../shared/http/oidc-issuer';
import { LocalStartError } from './errors';
import { listenError } from './ports';
import { KEEP_ALIVE_TIMEOUT_MS } from './gateway';

/**
 * The development OIDC issuer: it stands in for the Amazon Cognito user pool that issues ledger
 * consumers their client-credentials access tokens in AWS. Same protocol (RFC 6749 section 4.4
 * at /oauth2/token, keys at /.well-known/jwks.json, discovery), loopback only, no account. The
 * protocol is shared/http/oidc-issuer.ts, which the LocalStack deployment also runs as a Lambda
 * (`-c ledgerIssuer=embedded`); this file is the laptop's server, key file and client file.
 *
 * Differences from Cognito, on purpose: tokens carry `aud` = the ledger audience (Cognito's carry
 * none; the verifier accepts both, shared/ledger/consumer-auth.ts), and `POST /dev/clients` registers a
 * client, standing in for `aws cognito-idp create-user-pool-client`. That endpoint exists only
 * here: it answers loopback callers only and refuses browser requests (an Origin header, or a
 * body that is not JSON, which a page cannot send across origins without a preflight we never allow).
 *
 * With a data directory the signing key and the clients survive restarts in <dataDir>/oidc/
 * (mode 0600; .data/ is git-ignored), so tokens and secrets stay valid across `npm start`s.
 */

export interface DevIssuerOptions {
  /** 0 picks a free port. */
  port: number;
  /** A loopback address; nothing else may reach the issuer. */
  host?: string;
  dataDir?: string;
  /** The `aud` of every token, and the resource-server prefix of its scopes. */
  audience: string;
  tokenTtlSeconds?: number;
  clock?: Clock;
}

export interface ClientCredentials {
  client_id: string;
  client_secret: string;
}

export interface DevSigningKey {
  privateKey: CryptoKey;
  kid: string;
  /** The public half as published at the JWKS endpoint. */
  publicJwk: JWK;
}

export interface DevIssuer {
  /** Its base URL, the `iss` of its tokens. */
  issuer: string;
  tokenUrl: string;
  jwksUrl: string;
  audience: string;
  signingKey: DevSigningKey;
  /** Idempotent: a registered client keeps its secret. */
  registerClient(clientId: string): ClientCredentials;
  /** Signs exactly these claims with the issuer's key (tests: expired, foreign, odd tokens). */
  mintToken(claims: JWTPayload, options?: Omit<MintOptions, 'signingKey'>): Promise<string>;
  close(): Promise<void>;
}

export interface MintOptions {
  signingKey: DevSigningKey;
  /** Header overrides, e.g. a `kid` the key set does not have. */
  header?: Partial<JWTHeaderParameters>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
const ALG = ISSUER_ALG;

/** Signs exactly `claims`; nothing is added, so a test controls every claim. */
export async function mintToken(claims: JWTPayload, options: MintOptions): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: ALG, kid: options.signingKey.kid, ...options.header }).sign(options.signingKey.privateKey);
}

/** An RSA 2048 signing key: read from <dataDir>/oidc/signing-key.json, or generated (and stored there). */
export async function loadOrCreateSigningKey(dataDir?: string): Promise<DevSigningKey> {
  const file = dataDir ? join(dataDir, 'oidc', 'signing-key.json') : undefined;
  if (file && existsSync(file)) {
    const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
    if (jwk.kty !== 'RSA' || !jwk.d || !jwk.kid) throw new LocalStartError(`${file} is not an RSA private JWK; delete it to generate a new key.`);
    return { privateKey: (await importJWK(jwk, ALG)) as CryptoKey, kid: jwk.kid, publicJwk: publicHalf(jwk) };
  }
  const { privateKey } = await generateKeyPair(ALG, { modulusLength: 2048, extractable: true });
  const exported = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n: exported.n, e: exported.e });
  const jwk: JWK = { ...exported, kid, alg: ALG, use: 'sig' };
  if (file) writePrivate(file, JSON.stringify(jwk, null, 2));
  return { privateKey: (await importJWK(jwk, ALG)) as CryptoKey, kid, publicJwk: publicHalf(jwk) };
}

export async function startDevIssuer(options: DevIssuerOptions): Promise<DevIssuer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) throw new LocalStartError(`The dev OIDC issuer listens on loopback only, not on ${host}.`);
  if (!options.audience) throw new LocalStartError('The dev OIDC issuer needs an audience.');
  const signingKey = await loadOrCreateSigningKey(options.dataDir);
  const clients = new ClientRegistry(options.dataDir ? join(options.dataDir, 'oidc', 'clients.json') : undefined);
  const mint = (claims: JWTPayload, mintOptions: Omit<MintOptions, 'signingKey'> = {}) => mintToken(claims, { ...mintOptions, signingKey });
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, json(500, { error: 'server_error', error_description: String(error) }));
      else response.destroy();
    });
  });
  // As the gateways' (local/gateway.ts): idle connections outlive the client's, so none is reset under load.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options.port, 'the dev OIDC issuer', 'OIDC_PORT')));
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host === '::1' ? '[::1]' : host}:${port}`;
  // Requests are served from the next I/O turn on, after this is set.
  const protocol = createOidcIssuer({
    issuer,
    audience: options.audience,
    tokenTtlSeconds: options.tokenTtlSeconds,
    clock: options.clock,
    signer: { sign: (claims) => mint(claims), jwks: async () => ({ keys: [signingKey.publicJwk] }) },
    clients: { verify: async (clientId, secret) => clients.verify(clientId, secret) },
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isLoopback(request.socket.remoteAddress)) return send(response, json(403, { error: 'access_denied' }));
    const path = new URL(request.url ?? '/', issuer).pathname;
    if (`${request.method} ${path}` === 'POST /dev/clients') return registerViaHttp(request, response);
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
    const answer = await protocol({ method: request.method ?? 'GET', path, headers, body: request.method === 'POST' ? await readBody(request) : '' });
    if (answer) return send(response, answer);
    return send(response, json(path === '/dev/clients' ? 405 : 404, { error: path === '/dev/clients' ? 'method_not_allowed' : 'not_found' }));
  }

  async function registerViaHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // A web page may POST to loopback; it cannot send JSON or hide its Origin without a preflight.
    if (request.headers.origin !== undefined) return send(response, json(403, { error: 'access_denied' }));
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      return send(response, json(415, { error: 'invalid_request', error_description: 'Send JSON: {"client_id": "..."}.' }));
    }
    const body = await readBody(request);
    let clientId: unknown;
    try {
      clientId = (JSON.parse(body ?? '') as { client_id?: unknown }).client_id;
    } catch {
      clientId = undefined;
    }
    if (typeof clientId !== 'string' || !CLIENT_ID_PATTERN.test(clientId)) {
      return send(response, json(400, { error: 'invalid_request', error_description: 'client_id must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_" or "-".' }));
    }
    const existed = clients.has(clientId);
    return send(response, json(existed ? 200 : 201, clients.register(clientId)));
  }

  return {
    issuer,
    tokenUrl: `${issuer}/oauth2/token`,
    jwksUrl: `${issuer}/.well-known/jwks.json`,
    audience: options.audience,
    signingKey,
    registerClient: (clientId) => {
      if (!CLIENT_ID_PATTERN.test(clientId)) throw new Error(`invalid client id: ${clientId}`);
      return clients.register(clientId);
    },
    mintToken: mint,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // fetch keeps connections alive; without this close() would wait for them to idle out.
        server.closeAllConnections();
      }),
  };
}

/** Client secrets, kept in plain text (0600) so a repeated registration returns the same secret: development only. */
class ClientRegistry {
  private readonly clients = new Map<string, string>();

  constructor(private readonly file: string | undefined) {
    if (file && existsSync(file)) {
      const stored = JSON.parse(readFileSync(file, 'utf8')) as { clients?: Record<string, { client_secret: string }> };
      for (const [id, entry] of Object.entries(stored.clients ?? {})) this.clients.set(id, entry.client_secret);
    }
  }

  has(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  register(clientId: string): ClientCredentials {
    let secret = this.clients.get(clientId);
    if (!secret) {
      secret = randomBytes(32).toString('base64url');
      this.clients.set(clientId, secret);
      this.save();
    }
    return { client_id: clientId, client_secret: secret };
  }

  /** Constant time in the secret, and the same work for an unknown client. */
  verify(clientId: string, secret: string): boolean {
    const expected = this.clients.get(clientId);
    const digest = (value: string) => createHash('sha256').update(value).digest();
    const match = timingSafeEqual(digest(expected ?? randomBytes(32).toString('base64url')), digest(secret));
    return expected !== undefined && match;
  }

  private save(): void {
    if (!this.file) return;
    const clients = Object.fromEntries([...this.clients].map(([id, secret]) => [id, { client_secret: secret }]));
    writePrivate(this.file, JSON.stringify({ clients }, null, 2));
  }
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

/** The body as text, or undefined past the size limit. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_TOKEN_REQUEST_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, answer: IssuerResponse): void {
  response.writeHead(answer.status, answer.headers);
  response.end(JSON.stringify(answer.body));
}

function publicHalf(jwk: JWK): JWK {
  return { kty: jwk.kty, n: jwk.n, e: jwk.e, kid: jwk.kid, alg: ALG, use: 'sig' };
}

/** Written whole (temp file, then rename) and readable by the owner only. */
function writePrivate(file: string, content: string): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
