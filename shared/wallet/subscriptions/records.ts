import type * as z from '../../kernel/zod';
import { getItem, queryPage, type Item, type Page } from '../../aws/store';
import { bool, codec, int, nullable, obj, oneOf, opt, str, strMap } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { INTERVALS } from '../catalog/fields';
import type { StoreDeps } from '../deps';
import { COMMISSION_MODES, type CommissionMode, type FeeRule } from '../tenancy/fees';
import { feeRule } from '../tenancy/records';
import { subscriptionKeys } from './keys';
import { periodStart, type Interval } from './periods';
import type { subscription, subscriptionListQuery } from './schemas';
import { recordFields } from '../keys';
import type { OwnerScope } from '../principals';

/** Subscriptions as stored and shown, and who sees which (a subscriber its own, the tenant all). */

export type Subscription = z.infer<typeof subscription>;

/**
 * A charge holding the subscription (docs/subscriptions.md, "The claim"): the period and try a
 * worker is charging and the ledger key pinned for that try, written before the ledger is asked.
 * Whoever finds it (the worker's next run, a cancel, pause or resume) finishes that charge under
 * that key before anything else changes the subscription.
 */
export interface ChargeClaim {
  period: number;
  try: number;
  key: string;
}

export interface SubscriptionRecord extends Subscription {
  tenant_id: string;
  /** Billing dates count from here (signup, or the last resume): period n is due at anchor + (n − anchor_period) intervals. */
  anchor_at: string;
  anchor_period: number;
  /** Pinned at signup: what every charge uses. */
  quote: {
    ledger_id: string;
    payer_account_id: string;
    settlement_account_id: string;
    revenue_account_id: string;
    fee_rule: FeeRule;
    commission_mode: CommissionMode;
  };
  /** The charge holding the subscription; absent or null when none does. */
  charging?: ChargeClaim | null;
  /** Resumes so far (absent: none): part of the ledger key of every try after one, so no try reuses a key the ledger remembers. */
  resumes?: number;
  version: number;
}

/**
 * The subscription item's codec: only the record's fields, so a record put back is keyed by what
 * its new state calls for (subscriptionItem). Statuses are spelt here, not taken from ./schemas,
 * so the billing worker does not build the API's schemas at import.
 */
export const toSubscriptionRecord = codec<SubscriptionRecord>('subscription', {
  id: str,
  user_id: str,
  merchant_id: str,
  client_id: str,
  offering_id: str,
  plan_name: str,
  amount: int,
  commission: int,
  currency: str,
  interval: oneOf(...INTERVALS),
  status: oneOf('active', 'past_due', 'paused', 'canceled'),
  pause_reason: nullable(oneOf('requested', 'dunning_exhausted', 'account_frozen', 'account_closed')),
  next_charge_at: nullable(str),
  retry_count: int,
  periods_charged: int,
  cancel_at_period_end: bool,
  metadata: strMap,
  canceled_at: nullable(str),
  created_at: str,
  updated_at: str,
  tenant_id: str,
  anchor_at: str,
  anchor_period: int,
  quote: obj<SubscriptionRecord['quote']>({
    ledger_id: str,
    payer_account_id: str,
    settlement_account_id: str,
    revenue_account_id: str,
    fee_rule: feeRule,
    commission_mode: oneOf(...COMMISSION_MODES),
  }),
  charging: opt(obj<ChargeClaim>({ period: int, try: int, key: str })),
  resumes: opt(int),
  version: int,
});

/** What the API shows of a subscription (its pinned quote and billing anchor stay inside). */
export const toSubscription = (r: SubscriptionRecord): Subscription => {
  return {
    id: r.id,
    user_id: r.user_id,
    merchant_id: r.merchant_id,
    client_id: r.client_id,
    offering_id: r.offering_id,
    plan_name: r.plan_name,
    amount: r.amount,
    commission: r.commission,
    currency: r.currency,
    interval: r.interval,
    status: r.status,
    pause_reason: r.pause_reason,
    next_charge_at: r.next_charge_at,
    retry_count: r.retry_count,
    periods_charged: r.periods_charged,
    cancel_at_period_end: r.cancel_at_period_end,
    metadata: r.metadata,
    canceled_at: r.canceled_at,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
};

/**
 * The item: its keys, its listings, and the due index while a charge is due, or held: a claim a
 * crash left stays where the billing worker finds it, whatever the subscription's state.
 */
export function subscriptionItem(record: SubscriptionRecord): Item {
  const fields = recordFields(record);
  const live = (record.status === 'active' || record.status === 'past_due') && record.next_charge_at !== null;
  const indexedAt = record.charging ? (record.next_charge_at ?? record.updated_at) : live ? record.next_charge_at : null;
  return {
    ...subscriptionKeys.subscription(record.id),
    ...subscriptionKeys.indexes(record.tenant_id, record.user_id, record.id),
    ...(indexedAt !== null ? subscriptionKeys.due(record.id, indexedAt) : {}),
    entity: 'subscription',
    ...fields,
  };
}

/** When period `n` is due. */
export const dueAt = (record: Pick<SubscriptionRecord, 'anchor_at' | 'anchor_period' | 'interval'>, n: number): string =>
  periodStart(record.anchor_at, record.interval as Interval, n - record.anchor_period);

/** Refuses: not_found (absent, another tenant's, or another subscriber's). */
export async function subscriptionRecord(deps: StoreDeps, scope: OwnerScope, id: string): Promise<SubscriptionRecord> {
  const item = await getItem(deps, subscriptionKeys.subscription(id));
  if (!item || item.tenant_id !== scope.tenantId || (scope.userId !== undefined && item.user_id !== scope.userId)) throw new AppError('not_found', `No subscription ${id}.`);
  return toSubscriptionRecord(item);
}

/** The tenant's subscriptions (or a subscriber's own), newest first, by user, merchant and status. */
export async function listSubscriptions(deps: StoreDeps, scope: OwnerScope, query: z.infer<typeof subscriptionListQuery>): Promise<Page<Subscription>> {
  if (scope.userId !== undefined && query.user_id !== undefined && query.user_id !== scope.userId) throw new AppError('user_not_found', `No user ${query.user_id}.`);
  const userId = scope.userId ?? query.user_id;
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  if (query.status) {
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = query.status;
  }
  if (query.merchant_id) {
    conditions.push('merchant_id = :merchant');
    values[':merchant'] = query.merchant_id;
  }
  const page = await queryPage(deps, {
    index: userId ? 'gsi2' : 'gsi1',
    partition: userId ? subscriptionKeys.userSubscriptions(userId) : subscriptionKeys.tenantSubscriptions(scope.tenantId),
    cursor: query.cursor, created: query,
    limit: query.limit,
    ...(conditions.length > 0 ? { filter: { expression: conditions.join(' AND '), values, ...(Object.keys(names).length ? { names } : {}) }, scanBudget: 1_000 } : {}),
  });
  return { data: page.items.filter((item) => item.tenant_id === scope.tenantId).map((item) => toSubscription(toSubscriptionRecord(item))), next_cursor: page.next_cursor };
}
