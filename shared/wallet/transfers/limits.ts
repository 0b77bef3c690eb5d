import { codec, int, nullable, obj, orElse } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { Actor, StoreDeps } from '../deps';
import { auditItem } from '../tenancy/audit';
import { ConditionsFailed, getItem, transact } from '../../aws/store';
import { POLICIES, retrying } from '../../kernel/retry';
import { getUserRecord } from '../tenancy/users';
import { transferKeys } from './keys';

/**
 * Tier limits (spec part 5 "limits:manage"): how much a user may send in P2P transfers per UTC day
 * and per UTC month. The tenant sets them for all its users; a user may carry an override. They are
 * enforced by the ledger, not here: a transfer's posting carries one limit claim per window
 * (`limitClaims`), consumed in the same database transaction as the money, so concurrent transfers
 * can never pass a max together.
 */

export interface WindowLimits {
  /** Most a user may send per UTC day; null: no limit. */
  daily_max: number | null;
  /** Most a user may send per UTC month; null: no limit. */
  monthly_max: number | null;
}

export interface Limits {
  p2p: WindowLimits;
}

export interface UserLimits {
  user_id: string;
  /** The user's own limits; null: the tenant's apply. */
  p2p: WindowLimits | null;
  /** What applies to the user's transfers now. */
  effective: Limits;
}

export const NO_LIMITS: Limits = Object.freeze({ p2p: Object.freeze({ daily_max: null, monthly_max: null }) });

/** The tenant's limits (none set: no limits). */
export async function getLimits(deps: StoreDeps, tenantId: string): Promise<Limits> {
  const item = await getItem(deps, transferKeys.tenantLimits(tenantId));
  return item ? toLimits(item) : NO_LIMITS;
}

/**
 * Replaces the tenant's limits whole (an omitted window is null: no limit), conditioned on the
 * version read, with its audit record (before and after) in the same transaction.
 * Refuses: service_unavailable (still contended after a few attempts; retryable).
 */
export async function setLimits(deps: StoreDeps, tenantId: string, input: Limits, context: { actor: Actor; requestId: string }): Promise<Limits> {
  const after: Limits = { p2p: windowOf(input.p2p) };
  await versionedPut(deps, transferKeys.tenantLimits(tenantId), { entity: 'limits', tenant_id: tenantId, p2p: after.p2p }, (before) =>
    auditItem(deps, { tenantId, actor: context.actor, action: 'limits.set', target: { type: 'limits', id: tenantId }, before: before ? toLimits(before) : NO_LIMITS, after, requestId: context.requestId }),
  );
  return after;
}

/** A user's override and what applies. Refuses: user_not_found (also another tenant's user). */
export async function getUserLimits(deps: StoreDeps, tenantId: string, userId: string): Promise<UserLimits> {
  await getUserRecord(deps, tenantId, userId);
  const [tenant, override] = await Promise.all([getLimits(deps, tenantId), readOverride(deps, userId)]);
  return { user_id: userId, p2p: override, effective: { p2p: override ?? tenant.p2p } };
}

/**
 * Sets (or with `p2p: null` removes) a user's override, audited like the tenant's limits.
 * Refuses: user_not_found, service_unavailable (contended).
 */
export async function setUserLimits(
  deps: StoreDeps,
  tenantId: string,
  userId: string,
  input: { p2p: WindowLimits | null },
  context: { actor: Actor; requestId: string },
): Promise<UserLimits> {
  await getUserRecord(deps, tenantId, userId);
  const p2p = input.p2p === null ? null : windowOf(input.p2p);
  await versionedPut(deps, transferKeys.userLimits(userId), { entity: 'user_limits', tenant_id: tenantId, user_id: userId, p2p }, (before) =>
    auditItem(deps, {
      tenantId,
      actor: context.actor,
      action: 'user_limits.set',
      target: { type: 'user', id: userId },
      before: { p2p: before ? decodeUserLimits(before).p2p : null },
      after: { p2p },
      requestId: context.requestId,
    }),
  );
  const tenant = await getLimits(deps, tenantId);
  return { user_id: userId, p2p, effective: { p2p: p2p ?? tenant.p2p } };
}

/** What limits a user's transfers now: the user's override, else the tenant's. */
export async function effectiveLimits(deps: StoreDeps, tenantId: string, userId: string): Promise<Limits> {
  const [tenant, override] = await Promise.all([getItem(deps, transferKeys.tenantLimits(tenantId)), getItem(deps, transferKeys.userLimits(userId))]);
  return effectiveLimitsOf(tenant, override);
}

/** The same from the two items as read (`transferKeys.tenantLimits`, `transferKeys.userLimits`), either absent. */
export function effectiveLimitsOf(tenantItem: Record<string, unknown> | undefined, userItem: Record<string, unknown> | undefined): Limits {
  const override = userItem ? decodeUserLimits(userItem).p2p : null;
  return { p2p: override ?? (tenantItem ? toLimits(tenantItem) : NO_LIMITS).p2p };
}

export interface LimitClaim {
  key: string;
  amount: number;
  max: number;
  expires_at: string;
}

/**
 * The ledger limit claims of a P2P transfer of `amount` by `userId` at `at`: one per window that
 * has a max, keyed by the UTC day or month, expiring when that window ends (the ledger forgets
 * the running total some time after). Pure.
 */
export function limitClaims(limits: WindowLimits, userId: string, amount: number, at: Date): LimitClaim[] {
  const claims: LimitClaim[] = [];
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const day = at.toISOString().slice(0, 10);
  if (limits.daily_max !== null) {
    claims.push({ key: `p2p:${userId}:d:${day}`, amount, max: limits.daily_max, expires_at: new Date(Date.UTC(year, month, at.getUTCDate() + 1)).toISOString() });
  }
  if (limits.monthly_max !== null) {
    claims.push({ key: `p2p:${userId}:m:${day.slice(0, 7)}`, amount, max: limits.monthly_max, expires_at: new Date(Date.UTC(year, month + 1, 1)).toISOString() });
  }
  return claims;
}

async function readOverride(deps: StoreDeps, userId: string): Promise<WindowLimits | null> {
  const item = await getItem(deps, transferKeys.userLimits(userId));
  return item ? decodeUserLimits(item).p2p : null;
}

/** Puts `fields` at `key` conditioned on the version read, with the audit item `auditFor(before)`. */
async function versionedPut(
  deps: StoreDeps,
  key: { pk: string; sk: string },
  fields: Record<string, unknown>,
  auditFor: (before: Record<string, unknown> | undefined) => ReturnType<typeof auditItem>,
): Promise<void> {
  await retrying(POLICIES.contended, async () => {
    const before = await getItem(deps, key);
    const version = before ? decodeVersion(before).version : 0;
    await transact(deps, [
      {
        Put: {
          TableName: deps.table,
          Item: { ...key, ...fields, version: version + 1, updated_at: deps.clock.now().toISOString() },
          ConditionExpression: version === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
          ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
        },
      },
      auditFor(before),
    ]);
  }, {
    // Changed since the read: read again.
    retryable: (error) => error instanceof ConditionsFailed && error.indexes.includes(0),
    exhausted: () => new AppError('service_unavailable', 'The limits are being changed concurrently; retry the request.'),
  });
}

const windowOf = (value: Partial<WindowLimits>): WindowLimits => ({ daily_max: value.daily_max ?? null, monthly_max: value.monthly_max ?? null });

/** A window as stored: a max absent or null is no limit. */
const storedWindow = obj<WindowLimits>({ daily_max: nullable(int), monthly_max: nullable(int) });

/** The tenant's limits row; a row without a window limits nothing. */
const toLimits = codec<Limits>('limits', { p2p: orElse(storedWindow, () => ({ daily_max: null, monthly_max: null })) });

/** A user's override row; `p2p` null (or absent): the tenant's limits apply. */
const decodeUserLimits = codec<{ p2p: WindowLimits | null }>('user_limits', { p2p: nullable(storedWindow) });

/** Either row's version, which its next write is conditioned on. */
const decodeVersion = codec<{ version: number }>('limits', { version: int });
