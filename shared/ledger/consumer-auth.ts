import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ExpiringCache } from '../kernel/cache';
import { systemClock, type Clock } from '../kernel/clock';
import { AppError } from '../kernel/errors';
import type { Authenticator } from '../http/handler';
import { ACCEPTED_ALGORITHMS, issuerKeys, KeySetUnavailable } from '../http/jwks';
import type { Principal } from '../http/principal';

/**
 * The ledger API's credential verifier (spec part 5, "Ledger API authentication"): an OIDC
 * client-credentials access token whose `sub` names a registered ledger consumer. Nothing else
 * gets in: not an `sk_` API key, not a wallet user token, not a token of another issuer.
 *
 * Two token shapes pass the audience rule, because the two issuers we run differ:
 * - the development issuer (local/oidc-issuer.ts) sets `aud` to the ledger audience;
 * - Amazon Cognito client-credentials access tokens carry no `aud`, only `client_id` and `scope`
 *   entries `<resource-server-id>/<scope>`; the resource server id is the ledger audience.
 * The rules are listed in docs/ledger-auth.md.
 */

export interface ConsumerIdentity {
  id: string;
  name: string;
  sub: string;
}

export interface ConsumerAuthenticatorOptions {
  /** Compared exactly with the token's `iss`. */
  issuer: string;
  /** The dev issuer's `aud`, and Cognito's resource server identifier (scope prefix). */
  audience: string;
  /** Default `<issuer>/.well-known/jwks.json`, where both Cognito and the dev issuer publish keys. */
  jwksUrl?: string;
  findConsumerBySub(sub: string): Promise<ConsumerIdentity | undefined>;
  /** Leeway for `exp` and `nbf`; default 30 s. */
  clockToleranceSeconds?: number;
  clock?: Clock;
  /** Told the precise reason a credential was refused, for the log; the caller only sees a short detail. */
  onRefused?(reason: string): void;
}


/** Far above any real access token (Cognito's are about 1 KB); bounds parsing work per request. */
const MAX_TOKEN_LENGTH = 8192;
const CONSUMER_CACHE_TTL_MS = 60_000;
const CONSUMER_CACHE_MAX_ENTRIES = 1000;
/**
 * An accepted token is not verified again for this long (never past its `exp` and the tolerance):
 * a consumer sends the same token on every call for an hour, and an RSA verification was a fifth
 * of the ledger's own CPU per posting. A key withdrawn from the issuer's key set stops a token within
 * this window; the key set itself is cached longer.
 */
const VERIFIED_TOKEN_TTL_MS = 60_000;
const VERIFIED_TOKEN_MAX_ENTRIES = 1000;
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const BEARER = /^bearer +(\S+) *$/i;

const refused = (detail = 'The access token is not valid.') => new AppError('unauthenticated', detail);

export function createConsumerAuthenticator(options: ConsumerAuthenticatorOptions): Authenticator {
  const issuer = options.issuer;
  const audience = options.audience;
  if (!issuer || !audience) throw new Error('the ledger authenticator needs an issuer and an audience');
  const clock = options.clock ?? systemClock;
  const clockTolerance = options.clockToleranceSeconds ?? 30;
  const onRefused = options.onRefused ?? (() => undefined);
  const scopePrefix = `${audience}/`;

  // Key-set failures that are not about the token (issuer down, malformed key set) are ours: 503.
  const getKey = issuerKeys({ issuer, jwksUrl: options.jwksUrl, owner: 'the ledger authenticator' });

  // Positive results only: a consumer created a second ago must be accepted on the next call.
  const consumers = new ExpiringCache<ConsumerIdentity>({ ttlMs: CONSUMER_CACHE_TTL_MS, maxEntries: CONSUMER_CACHE_MAX_ENTRIES });
  const findConsumer = async (sub: string, nowMs: number): Promise<ConsumerIdentity | undefined> => {
    const cached = consumers.get(sub, nowMs);
    if (cached) return cached;
    const consumer = await options.findConsumerBySub(sub);
    if (consumer) consumers.set(sub, consumer, nowMs);
    return consumer;
  };

  // Accepted tokens only (signature and claims), until the earlier of the TTL and their expiry.
  const verified = new ExpiringCache<JWTPayload>({ ttlMs: VERIFIED_TOKEN_TTL_MS, maxEntries: VERIFIED_TOKEN_MAX_ENTRIES });

  return async ({ headers }): Promise<Principal> => {
    const header = headers.authorization;
    if (!header) {
      onRefused('no Authorization header');
      throw refused('A bearer access token is required.');
    }
    const token = BEARER.exec(header)?.[1];
    if (!token) {
      onRefused('Authorization is not a Bearer credential');
      throw refused('A bearer access token is required.');
    }
    if (token.startsWith('sk_')) {
      onRefused('an API key was presented');
      throw refused('The ledger API does not accept API keys; use an OIDC client-credentials access token.');
    }
    if (token.length > MAX_TOKEN_LENGTH || !JWS_COMPACT.test(token)) {
      onRefused('the credential is not a signed JWT');
      throw refused();
    }

    const nowMs = clock.now().getTime();
    const payload = verified.get(token, nowMs) ?? (await verifyToken(token, nowMs));
    const sub = payload.sub as string;
    const consumer = await findConsumer(sub, nowMs);
    if (!consumer) {
      onRefused(`no ledger consumer has sub ${JSON.stringify(sub)}`);
      throw refused('The access token does not belong to a registered ledger consumer.');
    }
    return { kind: 'ledger_consumer', id: consumer.id, consumerId: consumer.id, scopes: new Set(['ledger']) };
  };

  async function verifyToken(token: string, nowMs: number): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer,
        algorithms: [...ACCEPTED_ALGORITHMS],
        requiredClaims: ['exp', 'sub'],
        clockTolerance,
        currentDate: new Date(nowMs),
      }));
    } catch (error) {
      if (error instanceof KeySetUnavailable) {
        onRefused(`the issuer's key set is unavailable: ${String(error.cause)}`);
        throw new AppError('service_unavailable', 'The access token cannot be verified right now; retry later.');
      }
      onRefused(`token verification failed: ${(error as Error).message}`);
      if (error instanceof joseErrors.JWTExpired) throw refused('The access token has expired.');
      throw refused();
    }

    const reason = claimProblem(payload, audience, scopePrefix);
    if (reason) {
      onRefused(reason);
      throw refused();
    }
    verified.set(token, payload, nowMs, ((payload.exp as number) + clockTolerance) * 1000);
    return payload;
  }
}

/** Why verified claims are still not a ledger access token, or undefined when they are. */
function claimProblem(payload: JWTPayload, audience: string, scopePrefix: string): string | undefined {
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) return 'sub is missing';
  // Cognito marks its ID tokens `id`; only access tokens are credentials here.
  if (payload.token_use !== undefined && payload.token_use !== 'access') return `token_use is ${String(payload.token_use)}`;
  if (payload.aud !== undefined) {
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    return audiences.includes(audience) ? undefined : 'aud does not name the ledger';
  }
  const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
  return scopes.some((scope) => scope.startsWith(scopePrefix) && scope.length > scopePrefix.length)
    ? undefined
    : 'no aud and no scope of the ledger resource server';
}

