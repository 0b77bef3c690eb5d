import { dueKeys, forEachDue } from '../../aws/due-keys';
import type { TransactItem } from '../../aws/dynamodb';
import { commitVersioned, versionedPut, withFreshReads } from '../../aws/fresh-reads';
import { ConditionsFailed, getItem, transact } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import { logger } from '../../kernel/log';
import type { Transaction } from '../../ledger-client/contract';
import { LedgerRefusal } from '../../ledger-client/client';
import type { WalletDeps } from '../deps';
import { splitCharge } from '../payments/fees';
import { captureLegs } from '../money/legs';
import { ledgerKeyOf } from '../saga/registry';
import { faultPoint } from '../saga/faults';
import { computeFee } from '../tenancy/fees';
import { SUBSCRIPTION_SHARDS, subscriptionKeys } from './keys';
import { DUNNING_DELAYS_MS, MAX_TRIES } from './periods';
import { dueAt, subscriptionItem, toSubscription, toSubscriptionRecord, type ChargeClaim, type SubscriptionRecord } from './records';
import { METRIC, recordMetric } from '../../kernel/metrics';

/**
 * Charging a subscription's periods (docs/subscriptions.md). A charge is one ledger posting payer →
 * merchant settlement (+ platform revenue: the subscription fee and the commission fixed at
 * signup) under a key of its own per try. Before it posts, the worker CLAIMS the charge on the
 * subscription (a versioned write pinning period, try and ledger key); what the ledger answered is
 * then committed onto the subscription as it is by then, releasing the claim. Whoever finds a claim
 * (the next billing run after a crash, a cancel, pause or resume) finishes that charge first, under
 * the pinned key: the ledger replays a posting it made, so nothing moves twice, and once the ledger
 * has posted nothing refuses or skips the record of it. The worker running twice, two workers at
 * once, or a run after a crash: one posting per try, one commit and one event.
 */

export const chargeOf = (record: Pick<SubscriptionRecord, 'amount' | 'commission' | 'quote'>) =>
  splitCharge(record.amount, computeFee(record.quote.fee_rule, record.amount), record.commission, record.quote.commission_mode);

/**
 * The ledger key of one try of one period: the same for every worker and every retry of that try,
 * and never the same for two tries. A resume starts the period's tries again from 0, so after one
 * the key carries the resume's number: the tries before it were refused, and the ledger remembers a
 * refusal under its key (24 h). Never resumed: the first format, the one charges posted before
 * resumes were counted carry.
 */
export const chargeKey = (record: Pick<SubscriptionRecord, 'tenant_id' | 'id' | 'resumes'>, period: number, attempt: number) => {
  const resumes = record.resumes ?? 0;
  return ledgerKeyOf(record.tenant_id, record.id, resumes === 0 ? `period-${period}-try-${attempt}` : `period-${period}-resume-${resumes}-try-${attempt}`);
};

/** Posts the claimed try under its pinned key: a second post (another worker, a resume after a crash) replays the first. */
function postClaimed(runtime: WalletDeps, record: SubscriptionRecord, claim: ChargeClaim): Promise<Transaction> {
  return runtime.ledger().post(
    record.quote.ledger_id,
    {
      type: 'subscription',
      reference_id: record.id,
      metadata: { subscription_id: record.id, period: String(claim.period) },
      legs: captureLegs({ currency: record.currency, ...record.quote }, chargeOf(record)),
    },
    claim.key,
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

/** The charge of a period as the fault harness names it (not a saga of the engine: the claim is its key record). */
export const SUBSCRIPTION_CHARGE = 'subscription.charge';

export type ChargeResult = 'charged' | 'retry_scheduled' | 'paused' | 'canceled' | 'skipped';

/** Hooks for tests that prove crash safety; production code never sets them. */
export interface ChargeFaults {
  /** After the ledger posted a claimed try, before its commit. */
  afterLedger?: () => void | Promise<void>;
}

/**
 * The due period's charge: a claim held is finished first; a subscription set to cancel at the
 * period's end is canceled instead (except the period its anchor starts: the one a resume charges);
 * otherwise the try is claimed, posted and committed: charged, or a refusal's dunning step (retry
 * scheduled, or paused after the last try, or at once for a frozen or closed account). Returns what
 * happened; `skipped` when another writer changed the subscription first or the ledger's answer is
 * not known yet (the claim then stays, for the next run or change).
 */
export async function chargeDue(runtime: WalletDeps, record: SubscriptionRecord, faults: ChargeFaults = {}): Promise<ChargeResult> {
  if (record.charging) return settleOrSkip(runtime, record, faults);
  const now = runtime.clock.now().toISOString();
  if (record.cancel_at_period_end && record.periods_charged > record.anchor_period) {
    const after: SubscriptionRecord = { ...record, status: 'canceled', next_charge_at: null, canceled_at: now, updated_at: now, version: record.version + 1 };
    const items = [versionedPut(runtime, subscriptionItem(after), record.version), outboxItem(runtime, { type: 'subscription.canceled', tenantId: record.tenant_id, data: { subscription: toSubscription(after) } }).item];
    return (await writtenOnRead(runtime, items)) ? 'canceled' : 'skipped';
  }
  const claim: ChargeClaim = { period: record.periods_charged, try: record.retry_count, key: chargeKey(record, record.periods_charged, record.retry_count) };
  // Not a change the subscriber sees: updated_at stays.
  const claimed: SubscriptionRecord = { ...record, charging: claim, version: record.version + 1 };
  if (!(await writtenOnRead(runtime, [versionedPut(runtime, subscriptionItem(claimed), record.version)]))) return 'skipped';
  return settleOrSkip(runtime, claimed, faults);
}

/** A write on the version read; false when another writer changed the subscription first (this one then skips). */
async function writtenOnRead(runtime: WalletDeps, items: TransactItem[]): Promise<boolean> {
  try {
    await transact(runtime, items);
    return true;
  } catch (error) {
    if (error instanceof ConditionsFailed) return false;
    throw error;
  }
}

/** The worker's settling: a try the ledger has not answered yet keeps its claim for the next run. */
async function settleOrSkip(runtime: WalletDeps, record: SubscriptionRecord, faults: ChargeFaults): Promise<ChargeResult> {
  try {
    return await settleClaim(runtime, record, faults);
  } catch (error) {
    if (!(error instanceof ChargeUnanswered)) throw error;
    logger.warn('a claimed subscription charge has no answer from the ledger yet: the claim stays', { subscription_id: record.id, key: record.charging!.key, error: error.cause as Error });
    return 'skipped';
  }
}

/**
 * The ledger gave no final answer to a claimed try: unreachable, or busy with the same key (`busy`:
 * it will have one in a moment), or a key it holds for another request (a bug, logged).
 */
export class ChargeUnanswered extends Error {
  constructor(
    override readonly cause: unknown,
    readonly busy: boolean,
  ) {
    super('the ledger has not answered the claimed charge');
    this.name = 'ChargeUnanswered';
  }
}

/**
 * Finishes the charge holding the subscription: posts the claimed try under its pinned key, then
 * commits the ledger's answer. `skipped` when another finisher committed it first. Throws
 * ChargeUnanswered when the ledger's answer is not known: the claim stays.
 */
export async function settleClaim(runtime: WalletDeps, record: SubscriptionRecord, faults: ChargeFaults = {}): Promise<ChargeResult> {
  const claim = record.charging!;
  await faultPoint(SUBSCRIPTION_CHARGE, 'beforeLedger');
  let answer: { posted: Transaction } | { refused: string };
  try {
    answer = { posted: await postClaimed(runtime, record, claim) };
  } catch (error) {
    if (!(error instanceof LedgerRefusal) || UNANSWERED.has(error.code) || UNANSWERED_STATUSES.has(error.status)) {
      if (error instanceof LedgerRefusal && error.code === 'idempotency_key_reuse') logger.error('the ledger holds a claimed subscription charge\'s key for another request', { subscription_id: record.id, key: claim.key });
      throw new ChargeUnanswered(error, error instanceof LedgerRefusal && (error.code === 'idempotency_in_flight' || error.status === 429));
    }
    // Final under the key (remembered, or the same for every post of this request): nothing can
    // post under it later, so the claim may go with the try's dunning step.
    answer = { refused: error.code };
  }
  if ('posted' in answer) await faults.afterLedger?.();
  await faultPoint(SUBSCRIPTION_CHARGE, 'afterLedger');
  const result = await commitClaimed(runtime, record.id, claim, answer);
  await faultPoint(SUBSCRIPTION_CHARGE, 'afterCommit');
  return result;
}

/** Ledger answers that say nothing final about a try: its key busy (or, a bug, taken), a rate limit, a credential refused. */
const UNANSWERED = new Set(['idempotency_in_flight', 'idempotency_key_reuse']);
const UNANSWERED_STATUSES = new Set([401, 403, 429]);

/**
 * Commits a claimed try's answer onto the subscription as it is now (read fresh, written on the
 * version read, read again when another writer won), while the claim is still this one: a posting
 * is recorded whatever else landed (a canceled or paused subscription stays so, nothing due); a
 * refusal takes the dunning step. Either releases the claim.
 */
async function commitClaimed(runtime: WalletDeps, id: string, claim: ChargeClaim, answer: { posted: Transaction } | { refused: string }): Promise<ChargeResult> {
  return withFreshReads(async () => {
    const item = await getItem(runtime, subscriptionKeys.subscription(id));
    const current = item && toSubscriptionRecord(item);
    // Another finisher committed it: its record and event stand.
    if (!current || current.charging?.key !== claim.key) return 'skipped';
    const now = runtime.clock.now().toISOString();
    const [after, items, result] = 'posted' in answer ? chargedOnto(runtime, current, claim, answer.posted, now) : refusedOnto(runtime, current, claim, answer.refused, now);
    await commitVersioned(runtime, [versionedPut(runtime, subscriptionItem(after), current.version), ...items], [0]);
    return result;
  });
}

/** The record without its claim. */
const released = ({ charging: _claim, ...record }: SubscriptionRecord): SubscriptionRecord => record;

const isLive = (record: SubscriptionRecord) => record.status === 'active' || record.status === 'past_due';

/** A posted charge onto the subscription: the claimed period counted; a live one is active and bills on, another stays as it is with nothing due. */
function chargedOnto(runtime: WalletDeps, current: SubscriptionRecord, claim: ChargeClaim, posted: Transaction, now: string): [SubscriptionRecord, TransactItem[], ChargeResult] {
  const base = { ...released(current), periods_charged: claim.period };
  const after: SubscriptionRecord = isLive(current) ? charged(base, now) : { ...base, periods_charged: claim.period + 1, retry_count: 0, next_charge_at: null, updated_at: now, version: current.version + 1 };
  return [after, chargeItems(runtime, after, claim.period, posted), 'charged'];
}

/** A refused try onto the subscription: its dunning step; a subscription no longer live only loses the claim. */
function refusedOnto(runtime: WalletDeps, current: SubscriptionRecord, claim: ChargeClaim, code: string, now: string): [SubscriptionRecord, TransactItem[], ChargeResult] {
  if (!isLive(current)) return [{ ...released(current), updated_at: now, version: current.version + 1 }, [], 'skipped'];
  return refusedCharge(runtime, { ...released(current), retry_count: claim.try }, code, now);
}

/** The dunning step after a refused try: the record after it, the items beside it, and what happened. */
function refusedCharge(runtime: WalletDeps, record: SubscriptionRecord, code: string, now: string): [SubscriptionRecord, TransactItem[], ChargeResult] {
  const tries = record.retry_count + 1;
  const frozen = code === 'account_frozen' || code === 'account_closed';
  if (frozen || tries >= MAX_TRIES) {
    const reason = frozen ? (code as 'account_frozen' | 'account_closed') : 'dunning_exhausted';
    const after: SubscriptionRecord = { ...record, status: 'paused', pause_reason: reason, retry_count: tries, next_charge_at: null, updated_at: now, version: record.version + 1 };
    return [after, [outboxItem(runtime, { type: 'subscription.paused', tenantId: record.tenant_id, data: { subscription: toSubscription(after), reason } }).item], 'paused'];
  }
  const retryAt = new Date(new Date(now).getTime() + DUNNING_DELAYS_MS[tries - 1]!).toISOString();
  const after: SubscriptionRecord = { ...record, status: 'past_due', retry_count: tries, next_charge_at: retryAt, updated_at: now, version: record.version + 1 };
  return [
    after,
    [outboxItem(runtime, { type: 'subscription.retry_scheduled', tenantId: record.tenant_id, data: { subscription: toSubscription(after), reason: code } }).item, dunningHintPut(runtime, record.user_id, now)],
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

/**
 * The billing worker: every subscription whose charge (or retry) is due is tried once, and every
 * claim a crash left is finished, whatever the subscription's state. Returns what happened to each;
 * an item it cannot read is passed and fails the run after the others (`forEachDue`).
 */
export async function chargeDueSubscriptions(runtime: WalletDeps, faults: ChargeFaults = {}): Promise<Record<ChargeResult, number>> {
  const counts: Record<ChargeResult, number> = { charged: 0, retry_scheduled: 0, paused: 0, canceled: 0, skipped: 0 };
  const now = runtime.clock.now().toISOString();
  try {
    await forEachDue(dueKeys(runtime.client, runtime.table, { index: 'gsi3', shards: SUBSCRIPTION_SHARDS, partitionOf: subscriptionKeys.dueShard, before: now }), async (found) => {
      const item = await getItem(runtime, { pk: found.pk, sk: found.sk });
      if (!item) return;
      const record = toSubscriptionRecord(item);
      const due = record.charging || (isLive(record) && record.next_charge_at !== null && record.next_charge_at <= now);
      if (!due) return;
      counts[await chargeDue(runtime, record, faults)] += 1;
    });
  } finally {
    // Also for a run that failed after charging some.
    recordBillingMetrics(counts);
  }
  return counts;
}

/**
 * What due periods came to, by `Outcome`: `SubscriptionCharges` (charged, or canceled at the
 * period's end instead) and `DunningOutcomes` (a refused try's step: retry scheduled, or paused).
 * A point per outcome with a non-zero count: per billing run, or per change (a resume's charge, a
 * claimed charge a pause, resume or cancel finished).
 */
export function recordBillingMetrics(counts: Partial<Record<ChargeResult, number>>): void {
  for (const outcome of ['charged', 'canceled'] as const) {
    if ((counts[outcome] ?? 0) > 0) recordMetric(METRIC.subscriptionCharges, 'Count', counts[outcome]!, { Outcome: outcome });
  }
  for (const outcome of ['retry_scheduled', 'paused'] as const) {
    if ((counts[outcome] ?? 0) > 0) recordMetric(METRIC.dunningOutcomes, 'Count', counts[outcome]!, { Outcome: outcome });
  }
}
