import { mergedPage, mergeRange } from '../aws/merged-pages';
import { getItem } from '../aws/store';
import { AppError } from '../kernel/errors';
import type { LedgerContext } from './context';
import { consumerKeys } from './consumers';
import { allAccounts, ledgerOf } from './facts';
import { ledgerKeys } from './keys';
import { transactionOf } from './postings';
import { toPending, toTransaction } from './records';
import type { FeedPage, Pending, Transaction } from './schemas';

/** Reads: transactions, pendings, the event feed, the rollup, idempotency records (refusals documented on LedgerService). */

export async function getTransaction(context: LedgerContext, consumerId: string, ledgerId: string, transactionId: string): Promise<Transaction> {
  await ledgerOf(context, consumerId, ledgerId);
  return transactionOf(context, ledgerId, transactionId);
}

export async function getPending(context: LedgerContext, consumerId: string, ledgerId: string, pendingId: string): Promise<Pending> {
  await ledgerOf(context, consumerId, ledgerId);
  const item = await getItem(context.deps, ledgerKeys.pending(pendingId));
  if (!item || item.ledger_id !== ledgerId) throw new AppError('pending_not_found', `No pending posting ${pendingId} in this ledger.`);
  return toPending(item);
}

export async function listTransactions(
  context: LedgerContext,
  consumerId: string,
  ledgerId: string,
  options: { cursor?: string; limit: number; type?: string },
): Promise<{ data: Transaction[]; next_cursor: string | null }> {
  const ledger = await ledgerOf(context, consumerId, ledgerId);
  const page = await mergedPage(context.deps, {
    ...ledgerKeys.transactionListing(ledger),
    ...ledgerKeys.transactionRange,
    binding: { listing: 'transactions', owner: ledgerId },
    cursor: options.cursor,
    limit: options.limit,
    invalidCode: 'invalid',
    ...(options.type ? { filter: { expression: '#type = :type', names: { '#type': 'type' }, values: { ':type': options.type } } } : {}),
  });
  return { data: page.items.map(toTransaction), next_cursor: page.next_cursor };
}

const FEED_SETTLE_MS = 2_000;

export async function feed(context: LedgerContext, consumerId: string, ledgerId: string, cursor: string | undefined, limit: number): Promise<FeedPage> {
  const ledger = await ledgerOf(context, consumerId, ledgerId);
  const consumer = await getItem(context.deps, consumerKeys.consumer(consumerId));
  if (consumer?.feed_blocked === true) throw new AppError('event_feed_blocked', "An operator has blocked this consumer's event feed.");
  if (cursor !== undefined && !/^[0-9a-f-]{36}$/.test(cursor)) throw new AppError('invalid', 'cursor must be the id of the last event read.');
  const settledBefore = uuidFloor(context.deps.clock.now().getTime() - (context.deps.feedSettleMs ?? FEED_SETTLE_MS));
  if (cursor !== undefined && `${cursor}!` >= settledBefore) return { data: [], has_more: false, next_cursor: cursor };
  // Oldest first across the index shards; no id equals the floor (a UUIDv7's variant bits are set).
  // One more than the page is read: whether it exists is `has_more`, exactly.
  const { items, next } = await mergeRange(context.deps, {
    ...ledgerKeys.transactionListing(ledger),
    from: ledgerKeys.transactionRange.from,
    to: settledBefore,
    after: cursor,
    limit: limit + 1,
    descending: false,
  });
  const data = items.slice(0, limit).map((item) => {
    const transaction = toTransaction(item);
    return { id: transaction.id, type: 'transaction.posted' as const, created_at: transaction.created_at, transaction };
  });
  // A short page is the end of what is settled (younger transactions wait out the window, and are
  // read by polling from next_cursor), unless the merge stopped at its request budget (`next` is
  // then where it stopped): more may be settled, and the next page reads on. A page that read
  // nothing never says more, so a reader cannot spin on one cursor.
  const hasMore = items.length > limit || (next !== undefined && data.length > 0);
  return { data, has_more: hasMore, next_cursor: data.length > 0 ? data[data.length - 1]!.id : (cursor ?? null) };
}

/** The smallest UUIDv7 of a millisecond: ids below it were taken before that time. */
function uuidFloor(ms: number): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-0000-000000000000`;
}

export async function rollup(context: LedgerContext, consumerId: string, ledgerId: string) {
  await ledgerOf(context, consumerId, ledgerId);
  const accounts = await allAccounts(context, ledgerId);
  const rows = new Map<string, { owner_type: string; purpose: string; commodity: string; balance: number; pending_debits: number; pending_credits: number; accounts: number }>();
  const totals = new Map<string, number>();
  for (const account of accounts) {
    const key = `${account.owner_type}\u0000${account.purpose}\u0000${account.commodity}`;
    const row = rows.get(key) ?? { owner_type: account.owner_type, purpose: account.purpose, commodity: account.commodity, balance: 0, pending_debits: 0, pending_credits: 0, accounts: 0 };
    row.balance += account.balance.posted;
    row.pending_debits += account.balance.pending_debits;
    row.pending_credits += account.balance.pending_credits;
    row.accounts += 1;
    rows.set(key, row);
    totals.set(account.commodity, (totals.get(account.commodity) ?? 0) + account.balance.posted);
  }
  const commodities = [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([commodity, total]) => ({ commodity, total, balanced: total === 0 }));
  return {
    ledger_id: ledgerId,
    rows: [...rows.values()].sort((a, b) => `${a.owner_type}/${a.purpose}/${a.commodity}`.localeCompare(`${b.owner_type}/${b.purpose}/${b.commodity}`)),
    commodities,
    balanced: commodities.every((c) => c.balanced),
  };
}

export async function idempotencyRecord(context: LedgerContext, consumerId: string, ledgerId: string, key: string) {
  await ledgerOf(context, consumerId, ledgerId);
  const record = await context.idempotency.read(ledgerId, key, context.deps.clock.now());
  if (!record) throw new AppError('idempotency_key_not_found', 'No live record for this Idempotency-Key.');
  return {
    key: record.key,
    operation: record.operation,
    status_code: record.status_code,
    response: JSON.parse(record.body) as unknown,
    created_at: record.created_at,
    expires_at: new Date(record.expires_at_epoch * 1000).toISOString(),
  };
}
