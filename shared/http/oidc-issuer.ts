import { randomUUID } from 'node:crypto';
import type { JWK, JWTPayload } from 'jose';
import { epochSeconds, systemClock, type Clock } from '../kernel/clock';

/**
 * The development OIDC issuer's protocol, shared by its two deployments: the embedded platform's
 * loopback server (local/oidc-issuer.ts) and, where Cognito is not available (LocalStack's free
 * image, `-c ledgerIssuer=embedded`), a Lambda behind the ledger's own API
 * (functions/ledger/oidc-issuer.ts). It issues what Cognito issues ledger consumers: RFC 6749
 * section 4.4 client-credentials access tokens at POST /oauth2/token, its keys at
 * /.well-known/jwks.json, and discovery. Where the keys live and how clients are registered is
 * each deployment's (a file and an RSA key on a laptop; Secrets Manager and KMS in AWS).
 *
 * Tokens are RS256 with `kid`; claims `iss`, `sub` = `client_id` = the client id, `aud` = the ledger
 * audience (Cognito's carry none; shared/ledger/consumer-auth.ts accepts both), `scope` (default
 * `<audience>/postings`; requested scopes must be `<audience>/<name>`), `token_use: "access"`,
 * `iat`, `nbf`, `exp`, `jti`. Errors are RFC 6749 JSON: `invalid_client` 401, `invalid_request`,
 * `unsupported_grant_type`, `invalid_scope` 400.
 */

export const ISSUER_ALG = 'RS256';
export const MAX_TOKEN_REQUEST_BYTES = 16 * 1024;
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
const SCOPE_NAME_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** Where tokens are signed: an RSA private key on a laptop, a KMS key in AWS. */
export interface IssuerSigner {
  /** Signs exactly these claims; header `{alg: RS256, kid}`. */
  sign(claims: JWTPayload): Promise<string>;
  /** The public keys verifiers fetch. */
  jwks(): Promise<{ keys: JWK[] }>;
}

/** The registered clients. */
export interface IssuerClients {
  /**
   * Whether `secret` is the client's: constant time in the secret, the same work for an unknown
   * client. Throws when the registry cannot be read (answered 503: the client may be fine).
   */
  verify(clientId: string, secret: string): Promise<boolean>;
}

export interface IssuerRequest {
  method: string;
  /** The path below the issuer URL: `/oauth2/token`. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  /** The body as text; undefined when it was larger than MAX_TOKEN_REQUEST_BYTES. */
  body: string | undefined;
}

export interface IssuerResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface OidcIssuerOptions {
  /** The issuer URL, `iss` of every token; the endpoints are below it. */
  issuer: string;
  /** The `aud` of every token, and the resource-server prefix of its scopes. */
  audience: string;
  tokenTtlSeconds?: number;
  clock?: Clock;
  signer: IssuerSigner;
  clients: IssuerClients;
}

export const ISSUER_PATHS = ['/.well-known/openid-configuration', '/.well-known/jwks.json', '/oauth2/token'] as const;

/** The issuer's answer to a request, or undefined for a path that is not one of its endpoints. */
export function createOidcIssuer(options: OidcIssuerOptions): (request: IssuerRequest) => Promise<IssuerResponse | undefined> {
  const clock = options.clock ?? systemClock;
  const ttlSeconds = options.tokenTtlSeconds ?? 3600;
  const issuer = options.issuer.replace(/\/+$/, '');
  const tokenUrl = `${issuer}/oauth2/token`;
  const jwksUrl = `${issuer}/.well-known/jwks.json`;

  async function token(request: IssuerRequest): Promise<IssuerResponse> {
    if (!isFormContentType(request.headers['content-type'])) {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    if (request.body === undefined || Buffer.byteLength(request.body) > MAX_TOKEN_REQUEST_BYTES) return oauthError(400, 'invalid_request', 'The body is too large.');
    const form = new URLSearchParams(request.body);

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
    let known: boolean;
    try {
      known = CLIENT_ID_PATTERN.test(clientId) && (await options.clients.verify(clientId, secret));
    } catch {
      return oauthError(503, 'temporarily_unavailable', 'The client registry cannot be read right now; retry later.');
    }
    if (!known) return oauthError(401, 'invalid_client', 'Client authentication failed.', basic ? basicChallenge : {});

    const grantType = form.get('grant_type');
    if (!grantType) return oauthError(400, 'invalid_request', 'grant_type is required.');
    if (grantType !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', 'Only client_credentials is supported.');
    const scope = grantedScope(form.get('scope'), options.audience);
    if (scope === undefined) return oauthError(400, 'invalid_scope', `Scopes must have the form ${options.audience}/<name>.`);

    const now = epochSeconds(clock.now());
    const accessToken = await options.signer.sign({
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
    return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: ttlSeconds });
  }

  return async (request) => {
    const route = `${request.method.toUpperCase()} ${request.path}`;
    switch (route) {
      case 'GET /.well-known/openid-configuration':
        return json(200, {
          issuer,
          token_endpoint: tokenUrl,
          jwks_uri: jwksUrl,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          id_token_signing_alg_values_supported: [ISSUER_ALG],
          response_types_supported: ['token'],
          subject_types_supported: ['public'],
        });
      case 'GET /.well-known/jwks.json':
        return json(200, await options.signer.jwks());
      case 'POST /oauth2/token':
        return token(request);
      default:
        return (ISSUER_PATHS as readonly string[]).includes(request.path) ? json(405, { error: 'method_not_allowed' }) : undefined;
    }
  };
}

/** RFC 6749 section 5.1: token responses must not be cached; nothing here should be. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): IssuerResponse {
  return { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...headers }, body };
}

const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  json(status, { error, error_description: description }, headers);

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
