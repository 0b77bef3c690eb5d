import { getItem } from '../../aws/store';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ExpiringCache } from '../../kernel/cache';
import { systemClock, type Clock } from '../../kernel/clock';
import { AppError } from '../../kernel/errors';
import { isUuid } from '../../kernel/ids';
import type { WalletDeps } from '../deps';
import { walletKeys } from '../keys';
import { ACCEPTED_ALGORITHMS, issuerKeys, KeySetUnavailable } from '../../http/jwks';
import type { Principal } from '../../http/principal';
import { EXTERNAL_ID_PATTERN } from '../tenancy/user-fields';
import { IDP_USER_SCOPES } from './scopes';
import { CLOCK_TOLERANCE_SECONDS, RefusedCredential } from './tokens';

/**
 * IdP access tokens (spec part 5): a token of the platform's identity provider realm is itself the
 * wallet credential, with no exchange. It is verified against the realm's published keys
 * (asymmetric algorithms only), must name the wallet audience and carry a `tenant_id` claim naming
 * an existing tenant. The wallet user is external id `idp:<sub>` in that tenant, provisioned on
 * first contact as a consumer. Scopes are the platform's fixed set, IDP_USER_SCOPES, whatever the
 * token says.
 */

export interface IdpVerifierOptions {
  /** Compared exactly with the token's `iss`. */
  issuer: string;
  audience: string;
  /** Default `<issuer>/.well-known/jwks.json`. */
  jwksUrl?: string;
  clock?: Clock;
  tenantExists(tenantId: string): Promise<boolean>;
  /** The wallet user id for the external id, provisioning the user on first contact when `provision`. */
  resolveUser(tenantId: string, externalId: string, provision: boolean): Promise<string | undefined>;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

export const idpExternalId = (sub: string): string => `idp:${sub}`;

/**
 * `provision: false` is for routes that refuse idp_user anyway: the token is still verified in full
 * (a bad one is 401, a good one the route's 403), but no user is created for a request that will
 * be refused, and the function needs no ledger access.
 */
export function createIdpVerifier(options: IdpVerifierOptions): (token: string, provision: boolean) => Promise<Principal> {
  const getKey = issuerKeys({ issuer: options.issuer, jwksUrl: options.jwksUrl, owner: 'the IdP' });
  const clock = options.clock ?? systemClock;
  const tenants = new ExpiringCache<true>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });
  const users = new ExpiringCache<string>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });

  return async (token, provision) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: [...ACCEPTED_ALGORITHMS],
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: clock.now(),
      }));
    } catch (error) {
      if (error instanceof KeySetUnavailable) {
        throw new AppError('service_unavailable', 'The access token cannot be verified right now; retry later.');
      }
      const reason = `IdP token verification failed: ${(error as Error).message}`;
      if (error instanceof joseErrors.JWTExpired) throw new RefusedCredential(reason, 'The access token has expired.');
      throw new RefusedCredential(reason);
    }
    const sub = payload.sub;
    // The external id `idp:<sub>` must be one the users service accepts.
    if (typeof sub !== 'string' || !EXTERNAL_ID_PATTERN.test(idpExternalId(sub))) throw new RefusedCredential('sub is missing or not usable as an external id');
    // An ID token (Cognito marks them) is not a credential.
    if (payload.token_use !== undefined && payload.token_use !== 'access') throw new RefusedCredential(`token_use is ${String(payload.token_use)}`);
    const tenantId = payload.tenant_id;
    if (typeof tenantId !== 'string' || !isUuid(tenantId)) throw new RefusedCredential('tenant_id claim is missing or not a uuid');

    const nowMs = clock.now().getTime();
    if (!tenants.get(tenantId, nowMs)) {
      if (!(await options.tenantExists(tenantId))) throw new RefusedCredential(`tenant ${tenantId} does not exist`);
      tenants.set(tenantId, true, nowMs);
    }
    const externalId = idpExternalId(sub);
    const cacheKey = `${tenantId} ${externalId}`;
    let userId = users.get(cacheKey, nowMs);
    if (!userId) {
      userId = await options.resolveUser(tenantId, externalId, provision);
      if (userId) users.set(cacheKey, userId, nowMs);
    }
    const scopes = new Set<string>(IDP_USER_SCOPES);
    if (userId) return { kind: 'idp_user', id: userId, userId, tenantId, scopes };
    // A principal without userId would pass every self-access check: it exists only for routes
    // that refuse idp_user, where the credential hook answers 403 before any handler runs.
    if (provision) throw new Error('IdP user provisioning returned no user');
    return { kind: 'idp_user', id: externalId, tenantId, scopes };
  };
}

/** The WalletTable lookups of an IdP verifier: tenant existence and the external id mapping. */
export function idpLookups(runtime: WalletDeps): Pick<IdpVerifierOptions, 'tenantExists' | 'resolveUser'> {
  return {
    tenantExists: async (tenantId) =>
      !!(await getItem(runtime, walletKeys.tenant(tenantId), { consistent: false, projection: 'pk' })),
    resolveUser: (tenantId, externalId, provision) => (provision ? resolveIdpUser(runtime, tenantId, externalId) : findUserId(runtime, tenantId, externalId)),
  };
}

/**
 * The user of an external id, created on first contact. Two first requests at once both try to
 * create it; the loser reads the winner's.
 */
export async function resolveIdpUser(runtime: WalletDeps, tenantId: string, externalId: string): Promise<string> {
  const existing = await findUserId(runtime, tenantId, externalId);
  if (existing) return existing;
  try {
    return await provisionUser(runtime, tenantId, externalId);
  } catch (error) {
    const raced = await findUserId(runtime, tenantId, externalId);
    if (raced) return raced;
    throw error;
  }
}

async function findUserId(runtime: WalletDeps, tenantId: string, externalId: string): Promise<string | undefined> {
  const found = await getItem(runtime, walletKeys.userExternal(tenantId, externalId));
  return typeof found?.user_id === 'string' ? found.user_id : undefined;
}

/**
 * Creating a user is the tenancy service's (user row, cash account in the tenant's ledger, audit
 * record). Loaded on first contact only, so a function serving known users never loads it.
 */
async function provisionUser(runtime: WalletDeps, tenantId: string, externalId: string): Promise<string> {
  const { createUser } = await import('../tenancy/users');
  const { user } = await createUser(
    runtime,
    tenantId,
    { external_id: externalId, kind: 'consumer', metadata: {} },
    // The credential hook does not see the request id; the audit record gets one of its own.
    { actor: { kind: 'idp_user', id: externalId }, requestId: runtime.ids(), ifExists: 'return' },
  );
  return user.id;
}

