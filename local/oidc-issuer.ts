import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
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
import { systemClock, epochSeconds, type Clock } from '../shared/kernel/clock';
import { LocalStartError } from './errors';
import { listenError } from './ports';
import { KEEP_ALIVE_TIMEOUT_MS } from './gateway';

/**
 * The development OIDC issuer: it stands in for the Amazon Cognito user pool that issues ledger
 * consumers their client-credentials access tokens in AWS. Same protocol (RFC 6749 section 4.4
 * at /oauth2/token, keys at /.well-known/jwks.json, discovery), loopback only, no account.
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
const CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
const SCOPE_NAME_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
const MAX_BODY_BYTES = 16 * 1024;
const ALG = 'RS256';

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
  const clock = options.clock ?? systemClock;
  const ttlSeconds = options.tokenTtlSeconds ?? 3600;
  const signingKey = await loadOrCreateSigningKey(options.dataDir);
  const clients = new ClientRegistry(options.dataDir ? join(options.dataDir, 'oidc', 'clients.json') : undefined);

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: 'server_error', error_description: String(error) });
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
  const tokenUrl = `${issuer}/oauth2/token`;
  const jwksUrl = `${issuer}/.well-known/jwks.json`;
  const mint = (claims: JWTPayload, mintOptions: Omit<MintOptions, 'signingKey'> = {}) => mintToken(claims, { ...mintOptions, signingKey });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isLoopback(request.socket.remoteAddress)) return send(response, 403, { error: 'access_denied' });
    const path = new URL(request.url ?? '/', issuer).pathname;
    const route = `${request.method} ${path}`;
    switch (route) {
      case 'GET /.well-known/openid-configuration':
        return send(response, 200, {
          issuer,
          token_endpoint: tokenUrl,
          jwks_uri: jwksUrl,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          id_token_signing_alg_values_supported: [ALG],
          response_types_supported: ['token'],
          subject_types_supported: ['public'],
        });
      case 'GET /.well-known/jwks.json':
        return send(response, 200, { keys: [signingKey.publicJwk] });
      case 'POST /oauth2/token':
        return token(request, response);
      case 'POST /dev/clients':
        return registerViaHttp(request, response);
      default: {
        const known = ['/.well-known/openid-configuration', '/.well-known/jwks.json', '/oauth2/token', '/dev/clients'].includes(path);
        return send(response, known ? 405 : 404, { error: known ? 'method_not_allowed' : 'not_found' });
      }
    }
  }

  async function token(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
      send(response, status, { error, error_description: description }, headers);
    if (!isFormContentType(request.headers['content-type'])) {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    const body = await readBody(request);
    if (body === undefined) return oauthError(400, 'invalid_request', 'The body is too large.');
    const form = new URLSearchParams(body);

    // RFC 6749 section 2.3: exactly one client authentication method.
    const basic = parseBasic(request.headers.authorization);
    const viaForm = form.has('client_secret');
    if (basic === null) return oauthError(401, 'invalid_client', 'Malformed Basic credentials.', basicChallenge);
    if (basic && viaForm) return oauthError(400, 'invalid_request', 'Use one client authentication method, not two.');
    const clientId = basic?.clientId ?? form.get('client_id') ?? '';
    const secret = basic?.secret ?? form.get('client_secret') ?? '';
    if (!clientId || !secret) return oauthError(401, 'invalid_client', 'Client authentication is required.', basicChallenge);
    if (basic && form.has('client_id') && form.get('client_id') !== clientId) {
      return oauthError(400, 'invalid_request', 'client_id does not match the authenticated client.');
    }
    if (!clients.verify(clientId, secret)) {
      return oauthError(401, 'invalid_client', 'Client authentication failed.', basic ? basicChallenge : {});
    }

    const grantType = form.get('grant_type');
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required.');
    if (grantType !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', 'Only client_credentials is supported.');
    const scope = grantedScope(form.get('scope'), options.audience);
    if (scope === undefined) {
      return oauthError(400, 'invalid_scope', `Scopes must have the form ${options.audience}/<name>.`);
    }

    const now = epochSeconds(clock.now());
    const accessToken = await mint({
      iss: issuer,
      sub: clientId,
      client_id: clientId,
      aud: options.audience,
      scope,
      token_use: 'access',
      iat: now,
      nbf: now,
      exp: now + ttlSeconds,
      jti: randomUUID(),
    });
    return send(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: ttlSeconds });
  }

  async function registerViaHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // A web page may POST to loopback; it cannot send JSON or hide its Origin without a preflight.
    if (request.headers.origin !== undefined) return send(response, 403, { error: 'access_denied' });
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      return send(response, 415, { error: 'invalid_request', error_description: 'Send JSON: {"client_id": "..."}.' });
    }
    const body = await readBody(request);
    let clientId: unknown;
    try {
      clientId = (JSON.parse(body ?? '') as { client_id?: unknown }).client_id;
    } catch {
      clientId = undefined;
    }
    if (typeof clientId !== 'string' || !CLIENT_ID_PATTERN.test(clientId)) {
      return send(response, 400, { error: 'invalid_request', error_description: 'client_id must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_" or "-".' });
    }
    const existed = clients.has(clientId);
    return send(response, existed ? 200 : 201, clients.register(clientId));
  }

  return {
    issuer,
    tokenUrl,
    jwksUrl,
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

const basicChallenge = { 'www-authenticate': 'Basic realm="dev-oidc"' };

/** undefined: no Basic header; null: a malformed one. Id and secret are form-encoded (RFC 6749 section 2.3.1). */
function parseBasic(header: string | undefined): { clientId: string; secret: string } | null | undefined {
  if (!header) return undefined;
  const match = /^basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (!match) return /^basic\b/i.test(header) ? null : undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** The scope string to grant, or undefined when a requested scope is not the audience's. */
function grantedScope(requested: string | null, audience: string): string | undefined {
  const scopes = (requested ?? '').split(' ').filter(Boolean);
  if (scopes.length === 0) return `${audience}/postings`;
  const prefix = `${audience}/`;
  const valid = scopes.every((scope) => scope.startsWith(prefix) && SCOPE_NAME_PATTERN.test(scope.slice(prefix.length)));
  return valid ? [...new Set(scopes)].join(' ') : undefined;
}

function isFormContentType(value: string | undefined): boolean {
  return /^application\/x-www-form-urlencoded\s*(;|$)/i.test(value ?? '');
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
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // RFC 6749 section 5.1: token responses must not be cached; nothing here should be.
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...headers });
  response.end(JSON.stringify(body));
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
