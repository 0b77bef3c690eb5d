/**
 * The ledger's contract as the wallet sees it: the shapes its HTTP API answers. The wallet reaches
 * the ledger only through this folder (DESIGN.md "Money moves"), so it takes these types from here
 * and never from the ledger's own modules.
 */
import type * as z from 'zod';
import type { feedEvent } from '../ledger/schemas';

export type { Account, Entry, Ledger, Pending, Transaction } from '../ledger/schemas';

/** The most one leg may move (the ledger refuses more as `invalid`): the wallet names the field that would pass it. */
export { MAX_LEG_AMOUNT } from '../ledger/limits';

/** One event of a ledger's feed: a committed transaction, oldest first after the cursor. */
export type FeedEvent = z.infer<typeof feedEvent>;
