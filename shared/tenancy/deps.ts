import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { IdGenerator } from '../ids';
import type { LedgerClient } from '../ledger-client/client';

/**
 * What the tenancy services take instead of reaching for singletons (STYLE.md: clients injected).
 * `WalletRuntime` satisfies it; tests build one on DynamoDB Local and the embedded ledger.
 */
export interface StoreDeps {
  client: DynamoDBDocumentClient;
  /** The WalletTable's name. */
  table: string;
  clock: Clock;
  ids: IdGenerator;
}

/** The ledger operations tenancy uses, all through the ledger's HTTP contract. */
export type TenancyLedger = Pick<LedgerClient, 'createLedger' | 'openAccount' | 'listTransactions' | 'rollup'>;

export interface TenancyDeps extends StoreDeps {
  ledger(): TenancyLedger;
}

/** Who did something: a principal, or the platform itself (`system`) for seeding and workers. */
export interface Actor {
  kind: string;
  id: string;
}
