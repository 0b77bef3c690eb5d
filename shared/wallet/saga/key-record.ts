import { getItem, isConditionalCheckFailed, updateItem } from '../../aws/store';
import { fingerprintOf } from '../../http/json';
import { codec, int, obj, oneOf, opt, str, type Reader } from '../../kernel/codec';
import type { Principal } from '../../http/principal';
import type { WalletDeps } from '../deps';

/**
 * An operation's Idempotency-Key as the wallet keeps it: one item per (tenant, key), `started`
 * with everything a resume needs (the request, what the first try pinned, the caller), then
 * `completed` with its answer. While started it sits in the sweep index (gsi3, four shards).
 *
 * A key belongs to its caller (docs/security.md "Idempotency keys"): the fingerprint covers the
 * caller's scope and the whole request, so the same key sent by another caller, or with another
 * request, is idempotency_key_reuse, never the first caller's answer.
 */

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;
/** When a key's record expires (its TTL attribute): the retention after the operation started. */
export const keyExpiry = (createdAt: string): number => Math.floor(Date.parse(createdAt) / 1000) + IDEMPOTENCY_RETENTION_SECONDS;
/** How long a `started` key waits before the sweeper takes it over from a possibly live request. */
export const SWEEP_AFTER_MS = 30_000;
/**
 * A first try whose key took longer than this to be written posts nothing: the sweeper may already
 * have passed its start (it walks the index up to SWEEP_AFTER_MS ago), so the retry, which
 * re-indexes the key, goes on from there.
 */
export const LATE_START_MS = 10_000;
export const SWEEP_SHARDS = 4;

export const operationKeys = {
  record: (tenantId: string, key: string) => ({ pk: `IDEM#${tenantId}#${key}`, sk: 'IDEM' }),
  pendingIndex: (operationId: string, startedAt: string) => ({
    gsi3pk: `SAGA_STARTED#${parseInt(operationId.slice(-2), 16) % SWEEP_SHARDS}`,
    gsi3sk: `${startedAt}#${operationId}`,
  }),
  pendingShard: (shard: number) => `SAGA_STARTED#${shard}`,
  /** How far the sweeper has walked a shard of the index. */
  sweptThrough: (shard: number) => ({ pk: `SAGA_SWEPT#${shard}`, sk: 'SAGA_SWEPT' }),
  /** The tenant and the key `record` put in a partition key (the tenant id holds no `#`; the key may hold anything). */
  ofRecord: (pk: string): { tenantId: string; key: string } => {
    const rest = pk.slice('IDEM#'.length);
    const split = rest.indexOf('#');
    return { tenantId: rest.slice(0, split), key: rest.slice(split + 1) };
  },
};

/** The principal as the key record keeps it: its tenant is the record's own (the key's partition). */
export type KeptPrincipal = Pick<Principal, 'kind' | 'id' | 'userId' | 'clientId'>;

export const keptPrincipal = (principal: Principal): KeptPrincipal => ({
  kind: principal.kind,
  id: principal.id,
  ...(principal.userId === undefined ? {} : { userId: principal.userId }),
  ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
});

/**
 * Whose key space a key is in: a consumer token's user, an API key's client when it is bound to
 * one, a staff account, or the tenant's unbound API keys together (as Stripe scopes keys to the
 * account: a retry sent with a rotated key of the tenant is still the same caller).
 */
export function callerScope(principal: Pick<Principal, 'kind' | 'id' | 'userId' | 'clientId'>): string {
  switch (principal.kind) {
    case 'user_token':
    case 'idp_user':
      return `user:${principal.userId ?? principal.id}`;
    case 'api_key':
      return principal.clientId === undefined ? 'tenant' : `client:${principal.clientId}`;
    default:
      return `${principal.kind}:${principal.id}`;
  }
}

/** Fingerprints written from this version on carry this prefix: they cover the caller. */
const SCOPED = 'c1.';

/** The fingerprint of a request under its caller: the operation, the caller's scope and the whole request. */
export const scopedFingerprint = (operation: string, principal: Pick<Principal, 'kind' | 'id' | 'userId' | 'clientId'>, request: unknown): string =>
  `${SCOPED}${fingerprintOf(operation, { caller: callerScope(principal), request })}`;

/**
 * Whether a stored fingerprint is this request's. Records written before keys were scoped to
 * their caller (no prefix) are matched on the operation and request alone, and only while they
 * are started by the same caller; they are gone within IDEMPOTENCY_RETENTION_SECONDS of the change.
 */
export function sameRequest(stored: StoredRecord, operation: string, principal: Principal, request: unknown): boolean {
  if (stored.operation !== operation) return false;
  if (stored.fingerprint.startsWith(SCOPED)) return stored.fingerprint === scopedFingerprint(operation, principal, request);
  const legacy = [fingerprintOf(operation, request), fingerprintOf(operation, request, 'hex')];
  if (!legacy.includes(stored.fingerprint)) return false;
  return stored.principal === undefined || callerScope(stored.principal) === callerScope(principal);
}

/**
 * The key's record. What only a resume needs (request, pinned, principal, request id) is removed
 * when an answer is written, and nothing the key itself says (tenant, key) is stored twice. A
 * `creates` success writes no answer: its record stays `started`, its items answer for it.
 */
export interface StoredRecord {
  operation: string;
  operation_id: string;
  /** `c1.` + base64url sha256 of the operation, the caller's scope and the request's canonical JSON (unprefixed in records written before). */
  fingerprint: string;
  state: 'started' | 'completed';
  request?: string;
  /** JSON of runOperation's `pinned`, when given. */
  pinned?: string;
  principal?: KeptPrincipal;
  request_id?: string;
  status_code?: number;
  body?: string;
  /** JSON of a kept answer's own headers (./kept-answer.ts), when it has any. */
  answer_headers?: string;
  created_at: string;
}

/** The key record's codec; what a record lacks (by its state, or its age) stays absent. */
export const toStoredRecord = codec<StoredRecord>('idempotency', {
  operation: str,
  operation_id: str,
  fingerprint: str,
  state: oneOf('started', 'completed'),
  request: opt(str),
  pinned: opt(str),
  principal: opt(
    obj<KeptPrincipal>({
      // Any string: a processor or a payout rail is recorded under a kind of its own (outsidePrincipal in ../principals.ts).
      kind: str as Reader<KeptPrincipal['kind']>,
      id: str,
      userId: opt(str),
      clientId: opt(str),
    }),
  ),
  request_id: opt(str),
  status_code: opt(int),
  body: opt(str),
  answer_headers: opt(str),
  created_at: str,
});

/** A key in the sweep index, read with the projection the sweeper asks for. */
export type SweepEntry = Pick<StoredRecord, 'operation' | 'operation_id' | 'state' | 'created_at'>;

export const toSweepEntry = codec<SweepEntry>('idempotency', { operation: str, operation_id: str, state: oneOf('started', 'completed'), created_at: str });

/** When the record expires (its TTL attribute). */
const decodeExpiry = codec<{ expires_at_epoch: number }>('idempotency', { expires_at_epoch: int });

/** A started record has everything a resume needs. */
export type StartedRecord = StoredRecord & Required<Pick<StoredRecord, 'request' | 'principal' | 'request_id'>>;

/** A completed record has the answer and nothing only a resume needs. */
export type CompletedRecord = Omit<StoredRecord, 'request' | 'pinned' | 'principal' | 'request_id'> & Required<Pick<StoredRecord, 'status_code' | 'body'>>;

/** The key's record, unless it is gone or past its retention (TTL deletes lazily). */
export async function readRecord(runtime: WalletDeps, tenantId: string, key: string): Promise<StoredRecord | undefined> {
  const item = await getItem(runtime, operationKeys.record(tenantId, key));
  if (!item || decodeExpiry(item).expires_at_epoch < Math.floor(runtime.clock.now().getTime() / 1000)) return undefined;
  return toStoredRecord(item);
}

/** Moves a started key's sweep index entry to now, so that the sweeper's next walks see it. */
export async function reindex(runtime: WalletDeps, tenantId: string, idempotencyKey: string, operationId: string): Promise<void> {
  const entry = operationKeys.pendingIndex(operationId, runtime.clock.now().toISOString());
  try {
    await updateItem(runtime, operationKeys.record(tenantId, idempotencyKey), {
      expression: 'SET gsi3pk = :pk, gsi3sk = :sk',
      condition: '#state = :started AND operation_id = :operation',
      names: { '#state': 'state' },
      values: { ':pk': entry.gsi3pk, ':sk': entry.gsi3sk, ':started': 'started', ':operation': operationId },
    });
  } catch (error) {
    // Answered meanwhile (by a twin): nothing left to sweep.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
