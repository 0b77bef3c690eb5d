import type { LedgerClient } from '../../ledger-client/client';
import type { Entry } from '../../ledger-client/contract';
import type { StoreDeps } from '../deps';

/**
 * What the transfers area's services take (STYLE.md: clients injected). `WalletRuntime` satisfies
 * it; tests build one on DynamoDB Local and the embedded ledger.
 */

/** An account's entries, newest first: the ledger's `GET …/accounts/{id}/entries`. */
export type ListEntries = (ledgerId: string, accountId: string, query: { cursor?: string; limit?: number }) => Promise<{ data: Entry[]; next_cursor: string | null }>;

/**
 * The ledger operations this area uses, all through the ledger's HTTP contract. `listEntries` is
 * optional because the shared client does not offer it yet: without it, a user's transactions are
 * found by paging the tenant's ledger transactions (shared/wallet/transfers/transactions.ts).
 */
export type TransfersLedger = Pick<LedgerClient, 'getAccount' | 'updateAccount' | 'post' | 'listTransactions'> & { listEntries?: ListEntries };

export interface TransfersDeps extends StoreDeps {
  ledger(): TransfersLedger;
}
