/**
 * The ledger's contract as the wallet sees it: the types of its HTTP API, taken from the ledger's
 * own zod schemas (shared/ledger/schemas.ts). The wallet reaches the ledger only through this
 * folder (DESIGN.md "Money moves"), so it takes these types from here and never from the ledger's
 * own modules. Types only: importing them builds none of the ledger's schemas (cold start).
 */
export type {
  Account,
  AccountPatch,
  AccountRequest,
  Entry,
  EntryPage,
  EventsQuery,
  FeedEvent,
  FeedPage,
  Ledger,
  LedgerRequest,
  LegRequest,
  ListQuery,
  Pending,
  PendingRequest,
  PostingRequest,
  Rollup,
  Transaction,
  TransactionPage,
  TransactionsQuery,
} from '../ledger/schemas';

/** The most one leg may move (the ledger refuses more as `invalid`): the wallet names the field that would pass it. */
export { MAX_LEG_AMOUNT } from '../ledger/limits';
