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
/** Transactions index partitions of every ledger created from now on. */
export const TRANSACTION_INDEX_SHARDS = 16;

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

  transaction: (transactionId: string) => ({ pk: `TXN#${transactionId}`, sk: 'TXN' }),
  /**
   * A ledger's transactions index (gsi1), spread over `shards` partitions by transaction id: one
   * index partition takes about 1,000 writes a second, and new ids always sort last, so DynamoDB
   * cannot split it by key range. A ledger created before the spread has one partition (shards
   * undefined).
   */
  transactionIndex: (ledgerId: string, transactionId: string, shards: number | undefined) => ({
    gsi1pk: shards === undefined ? `TXNS#${ledgerId}` : `TXNS#${ledgerId}#${shardOf(transactionId, shards)}`,
    gsi1sk: transactionId,
  }),
  transactionPartitions: (ledgerId: string, shards: number | undefined) =>
    shards === undefined ? [`TXNS#${ledgerId}`] : Array.from({ length: shards }, (_, shard) => `TXNS#${ledgerId}#${shard}`),
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
