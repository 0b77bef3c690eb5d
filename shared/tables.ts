/**
 * The two DynamoDB tables, defined once. The CDK stacks and the embedded platform's bootstrap both
 * build their tables from these definitions, so keys, indexes, streams and TTL cannot drift between
 * AWS and a laptop. Entity layouts and access patterns are charted in docs/data-model.md.
 */

export type KeyType = 'S' | 'N';

export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /**
   * KEYS_ONLY for indexes over items that change on every write (account balances): updates to
   * non-key attributes then cost no index write, and readers fetch the items by key.
   */
  projection: 'ALL' | 'KEYS_ONLY';
}

export interface TableDefinition {
  /** CloudFormation logical id and the suffix of the local table name. */
  logicalId: string;
  /** Environment variable a bound function reads the table name from. */
  envVar: 'LEDGER_TABLE' | 'WALLET_TABLE';
  partitionKey: string;
  sortKey: string;
  indexes: IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry; DynamoDB deletes the item some time after it. */
  ttlAttribute: string;
  stream?: 'NEW_IMAGE' | 'NEW_AND_OLD_IMAGES';
}

export const ledgerTable: TableDefinition = {
  logicalId: 'LedgerTable',
  envVar: 'LEDGER_TABLE',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [
    // Transactions by ledger (feed, listings), ledgers by consumer, consumers.
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    // Accounts by ledger (sharded), open pendings by expiry: items whose balances change often.
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'KEYS_ONLY' },
  ],
  ttlAttribute: 'expires_at_epoch',
};

export const walletTable: TableDefinition = {
  logicalId: 'WalletTable',
  envVar: 'WALLET_TABLE',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'ALL' },
    { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: 'ALL' },
  ],
  ttlAttribute: 'expires_at_epoch',
  // The outbox relay reads new items; old images let workers see transitions.
  stream: 'NEW_AND_OLD_IMAGES',
};

export const tables = { ledger: ledgerTable, wallet: walletTable } as const;
export type TableKey = keyof typeof tables;

/** Every key attribute of a table with its type: all keys here are strings. */
export function keyAttributes(table: TableDefinition): { name: string; type: KeyType }[] {
  const names = [table.partitionKey, table.sortKey, ...table.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  return [...new Set(names)].map((name) => ({ name, type: 'S' as const }));
}
