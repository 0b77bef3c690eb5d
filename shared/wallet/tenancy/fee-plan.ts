import { AppError } from '../../kernel/errors';
import { outboxItem } from '../../events/outbox';
import { walletKeys } from '../keys';
import { auditItem } from './audit';
import type { Actor, StoreDeps } from '../deps';
import { feePlanOf, publicFeePlan, type PublicFeePlan } from './fees';
import type { FeePlanChange } from './fee-schemas';
import { getTenantRecord } from './tenants';
import { ConditionsFailed, transact } from '../../aws/store';
import { POLICIES, retrying } from '../../kernel/retry';

/** Reading and changing a tenant's fee plan (spec part 4 item 13). */

/** Refuses: tenant_not_found. */
export async function getFeePlan(deps: StoreDeps, tenantId: string): Promise<PublicFeePlan> {
  return publicFeePlan(feePlanOf(await getTenantRecord(deps, tenantId)));
}

/**
 * Replaces the named paths whole (an omitted max_fee clears the cap), keeps the others, and sets
 * the commission mode if given. The write is conditioned on the version read, so two concurrent
 * changes to different paths both land instead of one overwriting the other (the loser reads
 * again and reapplies). The change, its audit record (before and after) and the `fee_plan.set`
 * event commit in one transaction.
 * Refuses: invalid_request (out-of-range bps or amounts, min_fee above max_fee, nothing named),
 * tenant_not_found, service_unavailable (still contended after a few attempts; retryable).
 */
export async function setFeePlan(deps: StoreDeps, tenantId: string, change: FeePlanChange, context: { actor: Actor; requestId: string }): Promise<PublicFeePlan> {
  // The change's schemas load here, not at import: get-fee-plan shares this module (../../kernel/lazy.ts).
  const { applyFeePlanChange, feePlanChange } = await import('./fee-schemas');
  const parsed = feePlanChange.safeParse(change);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message }));
    throw new AppError('invalid_request', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
  }
  return retrying(POLICIES.contended, async () => {
    const tenant = await getTenantRecord(deps, tenantId);
    const before = feePlanOf(tenant);
    const after = applyFeePlanChange(before, parsed.data);
    const now = deps.clock.now().toISOString();
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: walletKeys.tenant(tenantId),
          UpdateExpression: 'SET fees = :fees, commission_mode = :mode, version = :next, updated_at = :now',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':fees': after.fees, ':mode': after.commission_mode, ':next': tenant.version + 1, ':version': tenant.version, ':now': now },
        },
      },
      auditItem(deps, { tenantId, actor: context.actor, action: 'fee_plan.set', target: { type: 'fee_plan', id: tenantId }, before: publicFeePlan(before), after: publicFeePlan(after), requestId: context.requestId }),
      outboxItem(deps, { type: 'fee_plan.set', tenantId, data: { fee_plan: publicFeePlan(after) } }).item,
    ]);
    return publicFeePlan(after);
  }, {
    // Another change of the plan committed since the read: read again and reapply.
    retryable: (error) => error instanceof ConditionsFailed && error.indexes.includes(0),
    exhausted: () => new AppError('service_unavailable', 'The fee plan is being changed concurrently; retry the request.'),
  });
}
