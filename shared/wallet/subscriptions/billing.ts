import { dueKeys } from '../../aws/due-keys';
import type { TransactItem } from '../../aws/dynamodb';
import { ConditionsFailed, getItem, transact } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Transaction } from '../../ledger-client/contract';
import { LedgerRefusal } from '../../ledger-client/client';
import type { WalletDeps } from '../deps';
import { splitCharge } from '../payments/fees';
import { captureLegs } from '../payments/records';
import { ledgerKeyOf } from '../saga/registry';
import { computeFee } from '../tenancy/fees';
import { SUBSCRIPTION_SHARDS, subscriptionKeys } from './keys';
import { DUNNING_DELAYS_MS, MAX_TRIES } from './periods';
import { dueAt, subscriptionItem, toSubscription, type SubscriptionRecord } from './records';

/**
 * Charging a subscription's periods (docs/subscriptions.md). A charge is one ledger posting payer →
 * merchant settlement (+ platform revenue: the subscription fee and the commission fixed at
 * signup) under a key derived from (subscription, period, try): the worker running twice, two
 * workers at once, or a retry after a crash post each try once; the subscription's commit is
 * conditioned on the period and try it charged, so one commit (and one event) wins.
 */

export const chargeOf = (record: Pick<SubscriptionRecord, 'amount' | 'commission' | 'quote'>) =>
  splitCharge(record.amount, computeFee(record.quote.fee_rule, record.amount), record.commission, record.quote.commission_mode);

/** The ledger key of one try of one period: the same for every worker and every retry of that try. */
export const chargeKey = (record: Pick<SubscriptionRecord, 'tenant_id' | 'id'>, period: number, attempt: number) =>
  ledgerKeyOf(record.tenant_id, record.id, `period-${period}-try-${attempt}`);

/** Posts one try of the period due. */
export function postCharge(runtime: WalletDeps, record: SubscriptionRecord): Promise<Transaction> {
  const period = record.periods_charged;
  return runtime.ledger().post(
    record.quote.ledger_id,
    {
      type: 'subscription',
      reference_id: record.id,
      metadata: { subscription_id: record.id, period: String(period) },
      legs: captureLegs({ currency: record.currency, ...record.quote }, chargeOf(record)),
    },
    chargeKey(record, period, record.retry_count),
  );
}

/** The record after a charge of its due period committed: the next period is due, dunning reset. */
export function charged(record: SubscriptionRecord, now: string): SubscriptionRecord {
  const next = { ...record, periods_charged: record.periods_charged + 1, retry_count: 0, status: 'active' as const, pause_reason: null, updated_at: now, version: record.version + 1 };
  return { ...next, next_charge_at: dueAt(next, next.periods_charged) };
}

/** The charge's history item and its event, in the commit of the subscription's change. */
export function chargeItems(runtime: WalletDeps, after: SubscriptionRecord, period: number, posted: Transaction): TransactItem[] {
  const amounts = chargeOf(after);
  const charge = { subscription_id: after.id, period, amount: after.amount, fee: amounts.fee, commission: amounts.commission, ledger_transaction_id: posted.id, charged_at: after.updated_at };
  return [
    { Put: { TableName: runtime.table, Item: { ...subscriptionKeys.charge(after.id, period), entity: 'subscription_charge', tenant_id: after.tenant_id, ...charge }, ConditionExpression: 'attribute_not_exists(pk)' } },
    outboxItem(runtime, { type: 'subscription.charged', tenantId: after.tenant_id, data: { subscription: toSubscription(after), charge } }).item,
  ];
}

/** Replaces the subscription, conditioned on the period and try it was read at. */
const conditionedPut = (runtime: WalletDeps, after: SubscriptionRecord, before: SubscriptionRecord): TransactItem => ({
  Put: {
    TableName: runtime.table,
    Item: subscriptionItem(after),
    ConditionExpression: 'periods_charged = :period AND retry_count = :try AND #status = :status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':period': before.periods_charged, ':try': before.retry_count, ':status': before.status },
  },
});

export type ChargeResult = 'charged' | 'retry_scheduled' | 'paused' | 'canceled' | 'skipped';

/** Hooks for tests that prove crash safety; production code never sets them. */
export interface ChargeFaults {
  afterLedger?: () => void;
}

/**
 * One try of the due period, then its commit: charged; or a refusal's dunning step (retry
 * scheduled, or paused after the last try, or at once for a frozen or closed account). A
 * subscription set to cancel at the period's end is canceled instead. Returns what happened;
 * `skipped` when another worker committed first or the ledger is busy with the same try.
 */
export async function chargeDue(runtime: WalletDeps, record: SubscriptionRecord, faults: ChargeFaults = {}): Promise<ChargeResult> {
  const now = runtime.clock.now().toISOString();
  const commit = async (items: TransactItem[], result: ChargeResult): Promise<ChargeResult> => {
    try {
      await transact(runtime, items);
      return result;
    } catch (error) {
      if (error instanceof ConditionsFailed) return 'skipped';
      throw error;
    }
  };
  if (record.cancel_at_period_end) {
    const after: SubscriptionRecord = { ...record, status: 'canceled', next_charge_at: null, canceled_at: now, updated_at: now, version: record.version + 1 };
    return commit([conditionedPut(runtime, after, record), outboxItem(runtime, { type: 'subscription.canceled', tenantId: record.tenant_id, data: { subscription: toSubscription(after) } }).item], 'canceled');
  }
  let posted: Transaction;
  try {
    posted = await postCharge(runtime, record);
  } catch (error) {
    if (!(error instanceof LedgerRefusal) || error.code === 'idempotency_in_flight' || error.code === 'idempotency_key_reuse') return 'skipped';
    return commit(...refusedCharge(runtime, record, error.code, now));
  }
  faults.afterLedger?.();
  const after = charged(record, now);
  return commit([conditionedPut(runtime, after, record), ...chargeItems(runtime, after, record.periods_charged, posted)], 'charged');
}

/** The dunning step after a refused try. */
function refusedCharge(runtime: WalletDeps, record: SubscriptionRecord, code: string, now: string): [TransactItem[], ChargeResult] {
  const tries = record.retry_count + 1;
  const frozen = code === 'account_frozen' || code === 'account_closed';
  if (frozen || tries >= MAX_TRIES) {
    const reason = frozen ? (code as 'account_frozen' | 'account_closed') : 'dunning_exhausted';
    const after: SubscriptionRecord = { ...record, status: 'paused', pause_reason: reason, retry_count: tries, next_charge_at: null, updated_at: now, version: record.version + 1 };
    return [[conditionedPut(runtime, after, record), outboxItem(runtime, { type: 'subscription.paused', tenantId: record.tenant_id, data: { subscription: toSubscription(after), reason } }).item], 'paused'];
  }
  const retryAt = new Date(new Date(now).getTime() + DUNNING_DELAYS_MS[tries - 1]!).toISOString();
  const after: SubscriptionRecord = { ...record, status: 'past_due', retry_count: tries, next_charge_at: retryAt, updated_at: now, version: record.version + 1 };
  return [
    [
      conditionedPut(runtime, after, record),
      outboxItem(runtime, { type: 'subscription.retry_scheduled', tenantId: record.tenant_id, data: { subscription: toSubscription(after), reason: code } }).item,
      dunningHintPut(runtime, record.user_id, now),
    ],
    'retry_scheduled',
  ];
}

/**
 * The payer's dunning hint, in the transaction that makes a subscription past_due: it lasts as long
 * as the longest retry delay from now, so it outlasts every retry scheduled before it (a later
 * subscription's hint, written later, reaches further). A subscription paid or paused before then
 * leaves it standing: a credit then looks and finds nothing, which is all a stale hint costs.
 */
function dunningHintPut(runtime: WalletDeps, userId: string, now: string): TransactItem {
  const until = new Date(new Date(now).getTime() + Math.max(...DUNNING_DELAYS_MS));
  return {
    Put: {
      TableName: runtime.table,
      Item: { ...subscriptionKeys.dunningHint(userId), entity: 'dunning_hint', user_id: userId, until: until.toISOString(), expires_at_epoch: Math.floor(until.getTime() / 1000) + 86_400 },
    },
  };
}

/** The billing worker: every subscription whose charge (or retry) is due is tried once. Returns what happened to each. */
export async function chargeDueSubscriptions(runtime: WalletDeps, faults: ChargeFaults = {}): Promise<Record<ChargeResult, number>> {
  const counts: Record<ChargeResult, number> = { charged: 0, retry_scheduled: 0, paused: 0, canceled: 0, skipped: 0 };
  const now = runtime.clock.now().toISOString();
  for await (const due of dueKeys(runtime.client, runtime.table, { index: 'gsi3', shards: SUBSCRIPTION_SHARDS, partitionOf: subscriptionKeys.dueShard, before: now })) {
    const record = (await getItem(runtime, { pk: due.pk, sk: due.sk })) as unknown as SubscriptionRecord | undefined;
    if (!record || (record.status !== 'active' && record.status !== 'past_due') || record.next_charge_at === null || record.next_charge_at > now) continue;
    counts[await chargeDue(runtime, record, faults)] += 1;
  }
  return counts;
}
