/**
 * The ledger's contract as the wallet sees it: the shapes its HTTP API answers. The wallet reaches
 * the ledger only through this folder (DESIGN.md "Money moves"), so it takes these types from here
 * and never from the ledger's own modules.
 */
export type { Account, Entry, Ledger, Pending, Transaction } from '../ledger/schemas';

/** The most one leg may move (the ledger refuses more as `invalid`): the wallet names the field that would pass it. */
export { MAX_LEG_AMOUNT } from '../ledger/schemas';
