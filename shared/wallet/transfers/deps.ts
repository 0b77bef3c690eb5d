import type { LedgerClient } from '../../ledger-client/client';
import type { StoreDeps } from '../deps';

/**
 * What the transfers area's services take (STYLE.md: clients injected). `WalletDeps` satisfies
 * it; tests build one on DynamoDB Local and the embedded ledger.
 */

/** The ledger operations this area uses, all through the ledger's HTTP contract. */
export type TransfersLedger = Pick<LedgerClient, 'getAccount' | 'updateAccount' | 'post' | 'listTransactions' | 'listEntries' | 'getTransaction'>;

export interface TransfersDeps extends StoreDeps {
  ledger(): TransfersLedger;
}
