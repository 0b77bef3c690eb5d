import { spreadCollection } from '../aws/merged-pages';
import { shardOf } from '../kernel/ids';

/**
 * Every LedgerTable key is built here (entity chart: docs/data-model.md). Items that take writes on
 * every posting (accounts, transactions, entries) each have a partition of their own, so a busy
 * ledger is not capped by one partition's write limit; only a hot account is, which is inherent.
 */

/** Accounts-by-ledger index partitions: spreads a ledger's accounts over this many GSI keys. */
export const ACCOUNT_INDEX_SHARDS = 8;
export const PENDING_INDEX_SHARDS = 4;
export const SHARDED_MARKER_PARTITIONS = 4;
/**
 * Partitions of the history of every ledger created from now on: one partition takes about 1,000
 * writes a second and new ids always sort last (no split for heat), so one would cap a ledger, and
 * a hot merchant with it, near 1,000 postings a second.
 */
export const TRANSACTION_PARTITIONS = 16;

/** How a ledger keeps its transactions (its facts). */
export interface TransactionLayout {
  id: string;
  /** Transactions are items of the ledger's history over this many partitions (ledgers created now). */
  transaction_partitions: number | undefined;
  /** Before: their own items, indexed over this many gsi1 partitions (undefined: one). */
  transaction_shards: number | undefined;
}

/** A ledger's transactions over `partitions` (`TXNS#<ledger>#<n>`): items of its history now, gsi1 keys before. */
const ledgerHistory = (ledgerId: string, partitions: number) => spreadCollection(`TXNS#${ledgerId}`, partitions);
/** A ref or record from before a transaction's ledger was known: its own partition. */
export const LEGACY_TRANSACTIONS: TransactionLayout = { id: '', transaction_partitions: undefined, transaction_shards: undefined };
const accountShardPartition = (accountId: string, shard: number) => `ACCOUNT#${accountId}#S${shard}`;
const shardEntriesPartition = (accountId: string, shard: number) => `ACCOUNT#${accountId}#E${shard}`;

export const ledgerKeys = {
  ledger: (ledgerId: string) => ({ pk: `LEDGER#${ledgerId}`, sk: 'LEDGER' }),
  ledgersOfConsumer: (consumerId: string) => `LEDGERS#${consumerId}`,

  account: (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }),
  accountIndex: (ledgerId: string, accountId: string) => ({
    gsi2pk: `ACCOUNTS#${ledgerId}#${shardOf(accountId, ACCOUNT_INDEX_SHARDS)}`,
    gsi2sk: accountId,
  }),
  accountIndexShard: (ledgerId: string, shard: number) => `ACCOUNTS#${ledgerId}#${shard}`,
  /** One account per (owner, purpose, commodity) in a ledger. */
  accountUnique: (ledgerId: string, a: { owner_type: string; owner_id: string; purpose: string; commodity: string }) => ({
    pk: `ACCOUNT_KEY#${ledgerId}#${a.owner_type}#${a.owner_id}#${a.purpose}#${a.commodity}`,
    sk: 'ACCOUNT_KEY',
  }),
  /**
   * A shard of a sharded account: credits land on one of them, each its own partition, so one
   * account is not capped by one item's write limit (./shards.ts).
   */
  accountShard: (accountId: string, shard: number) => ({ pk: accountShardPartition(accountId, shard), sk: 'SHARD' }),
  /** Every shard of an account, in shard order. */
  accountShards: (accountId: string, shards: number) => Array.from({ length: shards }, (_, k) => ({ pk: accountShardPartition(accountId, k), sk: 'SHARD' })),
  /** Sharded accounts, for the scheduled sweep: one marker per account, spread over a few partitions. */
  shardedAccount: (accountId: string) => ({ pk: `SHARDED_ACCOUNTS#${shardOf(accountId, SHARDED_MARKER_PARTITIONS)}`, sk: accountId }),
  shardedAccountsPartition: (partition: number) => `SHARDED_ACCOUNTS#${partition}`,
  /**
   * An entry lives in its account's partition, or, for a credit that landed on a shard, in that
   * shard's entries partition: apart from the shard item, so that each partition takes one
   * transactional write per credit, not two.
   */
  entry: (accountId: string, transactionId: string, index: number, shard?: number) => ({
    pk: shard === undefined ? `ACCOUNT#${accountId}` : shardEntriesPartition(accountId, shard),
    sk: `ENTRY#${transactionId}#${String(index).padStart(2, '0')}`,
  }),
  /** The partitions an account's entries live in: its own, then each shard's. */
  entryPartitions: (accountId: string, shards: number) => [`ACCOUNT#${accountId}`, ...Array.from({ length: shards > 1 ? shards : 0 }, (_, k) => shardEntriesPartition(accountId, k))],
  /** Every entry sort key lies in this range (`$` follows `#`). */
  entryRange: { from: 'ENTRY#', to: 'ENTRY$' },

  /**
   * A transaction. In a ledger created from now on (`transaction_partitions` set), an item of its
   * ledger's history in the partition its id picks (`TXNS#<ledger>#<n>`, sorted by id): listings
   * and the feed read the table itself, consistently, and a posting writes no index entry. In a
   * ledger created before: its own partition `TXN#<id>`, listed through gsi1 (`transactionIndex`).
   */
  transaction: (ledger: TransactionLayout, transactionId: string) =>
    ledger.transaction_partitions === undefined ? { pk: `TXN#${transactionId}`, sk: 'TXN' } : ledgerHistory(ledger.id, ledger.transaction_partitions).key(transactionId),
  /**
   * The gsi1 entry of a transaction in a ledger created before its transactions were items of its
   * history: over `transaction_shards` partitions by id (a ledger older still has one); none now.
   */
  transactionIndex: (ledger: TransactionLayout, transactionId: string) =>
    ledger.transaction_partitions !== undefined
      ? {}
      : {
          gsi1pk: ledger.transaction_shards === undefined ? `TXNS#${ledger.id}` : ledgerHistory(ledger.id, ledger.transaction_shards).key(transactionId).pk,
          gsi1sk: transactionId,
        },
  /** Where a ledger's transactions are listed from: the partitions and, for an older ledger, the index. */
  transactionListing: (ledger: TransactionLayout): { index?: 'gsi1'; partitions: string[]; consistent?: boolean } => {
    if (ledger.transaction_partitions !== undefined) return { partitions: ledgerHistory(ledger.id, ledger.transaction_partitions).partitions, consistent: true };
    const shards = ledger.transaction_shards;
    return { index: 'gsi1', partitions: shards === undefined ? [`TXNS#${ledger.id}`] : ledgerHistory(ledger.id, shards).partitions };
  },
  /** Every transaction id lies in this range (ids are lower-case hex and dashes). */
  transactionRange: { from: '0', to: 'g' },

  pending: (pendingId: string) => ({ pk: `PENDING#${pendingId}`, sk: 'PENDING' }),
  openPendingIndex: (pendingId: string, expiresAt: string) => ({
    gsi2pk: `OPEN_PENDINGS#${shardOf(pendingId, PENDING_INDEX_SHARDS)}`,
    gsi2sk: `${expiresAt}#${pendingId}`,
  }),
  openPendingShard: (shard: number) => `OPEN_PENDINGS#${shard}`,

  idempotency: (scope: string, key: string) => ({ pk: `IDEM#${scope}#${key}`, sk: 'IDEM' }),
  claim: (ledgerId: string, key: string) => ({ pk: `CLAIM#${ledgerId}#${key}`, sk: 'CLAIM' }),
};
