import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import * as z from '../../kernel/zod';
import { getItem } from '../../aws/store';
import { queueTransport } from '../../aws/queue';
import type { QueueTransport } from '../../aws/transport';
import { logger } from '../../kernel/log';
import { ExpiringCache } from '../../kernel/cache';
import { onFirstUse } from '../../kernel/lazy';
import { systemClock, type Clock } from '../../kernel/clock';
import { AppError } from '../../kernel/errors';
import { isUuid } from '../../kernel/ids';
import type { WalletDeps } from '../deps';
import { walletKeys } from '../keys';
import { ACCEPTED_ALGORITHMS, issuerKeys, KeySetUnavailable } from '../../http/jwks';
import type { Principal } from '../../http/principal';
import { EXTERNAL_ID_PATTERN } from '../tenancy/user-fields';
import { IDP_FIRST_CONTACT_QUEUE, type IdpFirstContact } from './credential-queues';
import { IDP_USER_SCOPES } from './scopes';
import { CLOCK_TOLERANCE_SECONDS, RefusedCredential } from './tokens';

/**
 * IdP access tokens (spec part 5): a token of the platform's identity provider realm is itself the
 * wallet credential, with no exchange. It is verified against the realm's published keys
 * (asymmetric algorithms only), must name the wallet audience and carry a `tenant_id` claim naming
 * an existing tenant. The wallet user is external id `idp:<sub>` in that tenant, provisioned on
 * first contact as a consumer. Scopes are the platform's fixed set, IDP_USER_SCOPES, whatever the
 * token says.
 *
 * First contact (spec part 5: "the wallet is provisioned on first contact") depends on the route
 * (./credential-queues.ts): a route whose function may create users (every write route that admits
 * IdP users does) creates it before its service runs, so a first top-up or payment finds its
 * wallet. A read route's function holds read grants only: it queues the first contact for the
 * provisioning worker (`authProvisionIdpUsers`, which may write and call the ledger) and answers as
 * for a wallet user that does not exist yet, through the nil user id that names no one: listings
 * are empty, a named user or resource is not found. The user exists moments later; a request before
 * that queues again (at most every FIRST_CONTACT_RESEND_MS per process), so a lost message costs a
 * retry, not the user.
 */

export interface IdpVerifierOptions {
  /** Compared exactly with the token's `iss`. */
  issuer: string;
  audience: string;
  /** Default `<issuer>/.well-known/jwks.json`. */
  jwksUrl?: string;
  clock?: Clock;
  tenantExists(tenantId: string): Promise<boolean>;
  /** The wallet user id for the external id; on first contact the user is created (`inline`) or queued (`queued`). */
  resolveUser(tenantId: string, externalId: string, firstContact: IdpFirstContact): Promise<string | undefined>;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

export const idpExternalId = (sub: string): string => `idp:${sub}`;

/** The user id of an IdP user whose wallet is still being provisioned: the nil UUID, which names no user. */
export const UNPROVISIONED_USER_ID = '00000000-0000-0000-0000-000000000000';

/**
 * `firstContact: 'none'` is for routes that refuse idp_user anyway: the token is still verified in
 * full (a bad one is 401, a good one the route's 403), but no user is created for a request that
 * will be refused.
 */
export function createIdpVerifier(options: IdpVerifierOptions): (token: string, firstContact: IdpFirstContact) => Promise<Principal> {
  const getKey = issuerKeys({ issuer: options.issuer, jwksUrl: options.jwksUrl, owner: 'the IdP' });
  const clock = options.clock ?? systemClock;
  const tenants = new ExpiringCache<true>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });
  const users = new ExpiringCache<string>({ ttlMs: CACHE_TTL_MS, maxEntries: CACHE_MAX_ENTRIES });

  return async (token, firstContact) => {
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
      userId = await options.resolveUser(tenantId, externalId, firstContact);
      if (userId) users.set(cacheKey, userId, nowMs);
    }
    const scopes = new Set<string>(IDP_USER_SCOPES);
    if (userId) return { kind: 'idp_user', id: userId, userId, tenantId, scopes };
    if (firstContact === 'inline') throw new Error('IdP user provisioning returned no user');
    // Never without a userId on a route that admits IdP users: a principal without one would pass
    // every self-access check. The nil id confines it to a user that does not exist.
    if (firstContact === 'queued') return { kind: 'idp_user', id: externalId, userId: UNPROVISIONED_USER_ID, tenantId, scopes };
    // Routes that refuse idp_user: the credential hook answers 403 before any handler runs.
    return { kind: 'idp_user', id: externalId, tenantId, scopes };
  };
}

/** How often one process queues the same user's first contact again while it is not provisioned yet. */
export const FIRST_CONTACT_RESEND_MS = 10_000;

/** The WalletTable lookups of an IdP verifier (tenant existence, the external id mapping) and its first contacts. */
export function idpLookups(runtime: WalletDeps, queue: QueueTransport = { send: (name, body) => queueTransport().send(name, body) }): Pick<IdpVerifierOptions, 'tenantExists' | 'resolveUser'> {
  const queued = new ExpiringCache<true>({ ttlMs: FIRST_CONTACT_RESEND_MS, maxEntries: CACHE_MAX_ENTRIES });
  const queueFirstContact = async (tenantId: string, externalId: string): Promise<void> => {
    const key = `${tenantId} ${externalId}`;
    const nowMs = runtime.clock.now().getTime();
    if (queued.get(key, nowMs)) return;
    queued.set(key, true, nowMs);
    const message: FirstContactMessage = { tenant_id: tenantId, external_id: externalId, at: runtime.clock.now().toISOString() };
    // The read is answered either way; a failed send is retried by the user's next request.
    await queue.send(IDP_FIRST_CONTACT_QUEUE, JSON.stringify(message)).catch((error: unknown) => {
      queued.delete(key);
      logger.warn('an IdP first contact could not be queued; the next request queues it again', { tenant_id: tenantId, error: error as Error });
    });
  };
  return {
    tenantExists: async (tenantId) =>
      !!(await getItem(runtime, walletKeys.tenant(tenantId), { consistent: false, projection: 'pk' })),
    resolveUser: async (tenantId, externalId, firstContact) => {
      if (firstContact === 'inline') return resolveIdpUser(runtime, tenantId, externalId);
      const found = await findUserId(runtime, tenantId, externalId);
      if (!found && firstContact === 'queued') await queueFirstContact(tenantId, externalId);
      return found;
    },
  };
}

const firstContactMessage = onFirstUse(() => z.object({ tenant_id: z.uuid(), external_id: z.string().check(z.regex(EXTERNAL_ID_PATTERN)), at: z.iso.datetime() }));
export type FirstContactMessage = z.infer<ReturnType<typeof firstContactMessage>>;

/**
 * The provisioning worker's handler: each queued first contact resolved as an inline one would be
 * (created unless it exists, so a repeated message or a raced request changes nothing). One that
 * fails (the ledger or DynamoDB unavailable) comes back after the visibility timeout, then goes to
 * the dead-letter queue (alarmed); the user's next request queues it again anyway.
 */
export function createFirstContactHandler(runtime: () => WalletDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const deps = runtime();
    const batchItemFailures: SQSBatchItemFailure[] = [];
    for (const record of event.Records) {
      try {
        const message = z.parse(firstContactMessage(), JSON.parse(record.body));
        await resolveIdpUser(deps, message.tenant_id, message.external_id);
      } catch (error) {
        logger.warn('an IdP first contact was not provisioned; the queue retries it', { message_id: record.messageId, error: error as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
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

