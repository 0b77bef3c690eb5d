import { getItems, queryPage, type Index, type Item } from '../../aws/store';
import type { Transaction } from '../../ledger-client/contract';
import type { StoreDeps } from '../deps';
import { walletKeys } from '../keys';
import { paymentKeys } from '../payments/keys';
import { payoutKeys } from '../payouts/keys';
import { rewardKeys } from '../rewards/keys';
import { toPaymentRewards } from '../rewards/records';
import { IDEMPOTENCY_RETENTION_SECONDS } from '../saga/key-record';
import { subscriptionKeys } from '../subscriptions/keys';
import { topupKeys } from '../topups/keys';
import { transferKeys } from '../transfers/keys';

/**
 * The ledger side of reconciliation: each transaction of a tenant's ledger matched, by its type
 * and reference, to the wallet record that explains it, a record that names this very
 * transaction (docs/reconciliation.md has the table). What each type's reference is comes from the
 * code that posts it:
 *   transfer            the transfer's id (its record names the transaction)
 *   topup               the top-up's id
 *   payment             the payment's id (created captured, or an order paid)
 *   payment_capture     the payment's id (an authorization captured; the pending itself is no transaction)
 *   refund              the refund's id
 *   payout              the payout's id (the paid posting of its hold)
 *   subscription        the subscription's id; metadata.period names the charge
 *   cashback, points_accrual            the payment's id: its rewards record names the grant's transaction
 *   cashback_clawback, points_clawback  the payment's id; the record is a reward history entry of metadata.user_id
 *   points_conversion   the conversion's id; the record is a reward history entry of metadata.user_id
 *   marketing_funding   the operation's id; the record is the tenant's audit entry `marketing_funds.add`
 * Opening a tenant or an account posts nothing, so no other type is the wallet's. The wallet never
 * reverses a transaction (a correction is a new operation with its own record), so a reversal in a
 * tenant's ledger is unexplained too.
 */

export type LedgerReason =
  /** No record of the type has the transaction's reference. */
  | 'no_record'
  /** The record is there but names another transaction: the money moved twice, or the record is wrong. */
  | 'record_names_other'
  /** A posting without a reference, of a type that needs one. */
  | 'no_reference'
  /** A type the wallet never posts. */
  | 'unknown_type'
  /** A reversal: the wallet makes none. */
  | 'reversal';

type Key = { pk: string; sk: string };

/** How the record that explains a transaction is found. */
type Plan =
  /** Read these keys (one BatchGetItem for a page): the tenant's item among them must name the transaction. */
  | { reads: Key[]; names: (item: Item) => boolean }
  /** Look through a partition for it (records that are not keyed by the reference). */
  | { search: Search }
  | { unexplained: LedgerReason };

interface Search {
  index?: Index;
  partition: string;
  /** The sort key range: ids (UUIDv7) written from shortly before the transaction until no saga can commit. */
  from: string;
  to: string;
  filter: { expression: string; names?: Record<string, string>; values: Record<string, unknown> };
}

/**
 * A record's id comes from the wallet's clock, the transaction's time from the ledger's; a record
 * written in the commit after the posting is looked for from this long before the posting on.
 */
export const CLOCK_SKEW_MS = 60_000;
/** Items one search evaluates per request, and at most in all (a partition busy after the posting). */
const SEARCH_PAGE = 100;
const SEARCH_BUDGET = 2_000;

/** The smallest UUIDv7 of a millisecond: ids below it were taken before that time. */
export function uuidFloor(ms: number): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-0000-000000000000`;
}

/** The posted amount as an orphan shows it: the debits in the first leg's commodity. Pure. */
export function amountOf(transaction: Pick<Transaction, 'legs'>): { amount: number; commodity: string } {
  const commodity = transaction.legs[0]?.commodity ?? '';
  const amount = transaction.legs.filter((leg) => leg.commodity === commodity && leg.direction === 'debit').reduce((sum, leg) => sum + leg.amount, 0);
  return { amount, commodity };
}

const namesTransaction = (transaction: Transaction) => (item: Item) => item.ledger_transaction_id === transaction.id;

/** Where a transaction's record is, from its type and reference. Pure. */
function planFor(tenantId: string, transaction: Transaction): Plan {
  if (transaction.reverses_txn_id !== null) return { unexplained: 'reversal' };
  const reference = transaction.reference_id;
  const userId = transaction.metadata.user_id;
  const created = Date.parse(transaction.created_at);
  const window = { from: uuidFloor(created - CLOCK_SKEW_MS), to: uuidFloor(created + IDEMPOTENCY_RETENTION_SECONDS * 1000 + CLOCK_SKEW_MS) };
  const historyEntry = (): Plan =>
    userId === undefined
      ? { unexplained: 'no_record' }
      : {
          search: {
            index: 'gsi1',
            partition: rewardKeys.history(userId),
            ...window,
            filter: { expression: 'ledger_transaction_id = :txn AND tenant_id = :tenant', values: { ':txn': transaction.id, ':tenant': tenantId } },
          },
        };
  if (reference === null) return { unexplained: KNOWN_TYPES.has(transaction.type) ? 'no_reference' : 'unknown_type' };
  switch (transaction.type) {
    case 'transfer':
      return { reads: [transferKeys.transfer(tenantId, reference), transferKeys.legacy(reference)], names: namesTransaction(transaction) };
    case 'topup':
      return { reads: [topupKeys.topup(reference)], names: namesTransaction(transaction) };
    case 'payment':
    case 'payment_capture':
      return { reads: [paymentKeys.payment(reference)], names: namesTransaction(transaction) };
    case 'refund':
      return { reads: [paymentKeys.refund(reference)], names: namesTransaction(transaction) };
    case 'payout':
      return { reads: [payoutKeys.payout(reference)], names: namesTransaction(transaction) };
    case 'subscription': {
      const period = Number(transaction.metadata.period);
      if (!Number.isSafeInteger(period) || period < 0) return { unexplained: 'no_record' };
      return { reads: [subscriptionKeys.charge(reference, period)], names: namesTransaction(transaction) };
    }
    case 'cashback':
    case 'points_accrual': {
      const grant = transaction.type === 'cashback' ? 'cashback' : 'points';
      return { reads: [rewardKeys.earned(reference)], names: (item) => toPaymentRewards(item).grants[grant]?.ledger_transaction_id === transaction.id };
    }
    case 'cashback_clawback':
    case 'points_clawback':
    case 'points_conversion':
      return historyEntry();
    case 'marketing_funding':
      return {
        search: {
          partition: walletKeys.auditPartition(tenantId),
          ...window,
          filter: {
            expression: '#action = :action AND #after.ledger_transaction_id = :txn',
            names: { '#action': 'action', '#after': 'after' },
            values: { ':action': 'marketing_funds.add', ':txn': transaction.id },
          },
        },
      };
    default:
      return { unexplained: 'unknown_type' };
  }
}

/** Every type the wallet posts (planFor's cases). */
const KNOWN_TYPES = new Set([
  'transfer',
  'topup',
  'payment',
  'payment_capture',
  'refund',
  'payout',
  'subscription',
  'cashback',
  'points_accrual',
  'cashback_clawback',
  'points_clawback',
  'points_conversion',
  'marketing_funding',
]);

/**
 * The transactions of a tenant's ledger that no wallet record explains, with why (the others are
 * matched). One BatchGetItem (per 100 keys) for those whose record is keyed by the reference;
 * a bounded query each for the few that are not.
 */
export async function unexplainedTransactions(deps: StoreDeps, tenantId: string, transactions: readonly Transaction[]): Promise<Map<string, LedgerReason>> {
  const verdicts = new Map<string, LedgerReason>();
  const reads: { transaction: Transaction; keys: Key[]; names: (item: Item) => boolean }[] = [];
  const searches: { transaction: Transaction; search: Search }[] = [];
  for (const transaction of transactions) {
    const plan = planFor(tenantId, transaction);
    if ('unexplained' in plan) verdicts.set(transaction.id, plan.unexplained);
    else if ('search' in plan) searches.push({ transaction, search: plan.search });
    else reads.push({ transaction, keys: plan.reads, names: plan.names });
  }
  const keyOf = (key: Key) => `${key.pk}\n${key.sk}`;
  const distinct = new Map<string, Key>();
  for (const read of reads) for (const key of read.keys) distinct.set(keyOf(key), key);
  // Records older than the grace: an eventually consistent read sees them, at half the cost.
  const items = await getItems(deps, [...distinct.values()], { consistent: false });
  const byKey = new Map([...distinct.keys()].map((key, at) => [key, items[at]]));
  for (const read of reads) {
    const own = read.keys.map((key) => byKey.get(keyOf(key))).filter((item): item is Item => item !== undefined && item.tenant_id === tenantId);
    if (own.some(read.names)) continue;
    verdicts.set(read.transaction.id, own.length > 0 ? 'record_names_other' : 'no_record');
  }
  for (const { transaction, search } of searches) {
    if (!(await found(deps, search))) verdicts.set(transaction.id, 'no_record');
  }
  return verdicts;
}

/** Whether the partition holds an item in the range that passes the filter, within the search budget. */
async function found(deps: StoreDeps, search: Search): Promise<boolean> {
  const sortKey = search.index ? `${search.index}sk` : 'sk';
  let cursor: string | undefined;
  let evaluated = 0;
  do {
    const page = await queryPage(deps, {
      index: search.index,
      partition: search.partition,
      cursor,
      limit: SEARCH_PAGE,
      descending: false,
      sortKey: { expression: '#sk BETWEEN :from AND :to', names: { '#sk': sortKey }, values: { ':from': search.from, ':to': search.to } },
      filter: search.filter,
      scanBudget: SEARCH_PAGE,
    });
    if (page.items.length > 0) return true;
    cursor = page.next_cursor ?? undefined;
    evaluated += SEARCH_PAGE;
  } while (cursor !== undefined && evaluated < SEARCH_BUDGET);
  return false;
}
