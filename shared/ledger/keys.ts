import { createHash } from 'node:crypto';

/**
 * Every LedgerTable key is built here (entity chart: docs/data-model.md). Items that take writes on
 * every posting (accounts, transactions, entries) each have a partition of their own, so a busy
 * ledger is not capped by one partition's write limit; only a hot account is, which is inherent.
 */

/** Accounts-by-ledger index partitions: spreads a ledger's accounts over this many GSI keys. */
export const ACCOUNT_INDEX_SHARDS = 8;
export const PENDING_INDEX_SHARDS = 4;

const shardOf = (id: string, shards: number) => createHash('sha1').update(id).digest().readUInt16BE(0) % shards;

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
  entry: (accountId: string, transactionId: string, index: number) => ({
    pk: `ACCOUNT#${accountId}`,
    sk: `ENTRY#${transactionId}#${String(index).padStart(2, '0')}`,
  }),
  entryPrefix: 'ENTRY#',

  transaction: (transactionId: string) => ({ pk: `TXN#${transactionId}`, sk: 'TXN' }),
  transactionsOfLedger: (ledgerId: string) => `TXNS#${ledgerId}`,

  pending: (pendingId: string) => ({ pk: `PENDING#${pendingId}`, sk: 'PENDING' }),
  openPendingIndex: (pendingId: string, expiresAt: string) => ({
    gsi2pk: `OPEN_PENDINGS#${shardOf(pendingId, PENDING_INDEX_SHARDS)}`,
    gsi2sk: `${expiresAt}#${pendingId}`,
  }),
  openPendingShard: (shard: number) => `OPEN_PENDINGS#${shard}`,

  idempotency: (scope: string, key: string) => ({ pk: `IDEM#${scope}#${key}`, sk: 'IDEM' }),
  claim: (ledgerId: string, key: string) => ({ pk: `CLAIM#${ledgerId}#${key}`, sk: 'CLAIM' }),
};
