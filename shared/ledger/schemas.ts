import * as z from '../kernel/zod';
import { cursor, type feedPage, metadata, oneOrMoreOf, type page, pageLimit, someField, timestamp, uuid } from '../http/schemas';
import { MAX_LEG_AMOUNT } from './limits';

/**
 * The ledger API's request and response shapes (spec part 2 "Ledger transaction", part 4 items
 * 2 to 6). Amounts are integers in minor units of the account's commodity; a balance is credits
 * minus debits, for every account.
 */

export const MAX_LEGS = 32;
export const MAX_CLAIMS = 8;
/** The most shard items one account may be spread over (a transaction touching all of them fits in one). */
export const MAX_ACCOUNT_SHARDS = 32;

export { MAX_LEG_AMOUNT };

export const commodity = z
  .string()
  .check(z.regex(/^[A-Z][A-Z0-9_]{1,15}$/, 'an upper-case code of 2 to 16 characters, such as USD or POINTS'));
const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const label = z.string().check(z.regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and underscores, up to 40'));

export const direction = z.enum(['debit', 'credit']);
export const legAmount = z.int().check(z.minimum(1), z.maximum(MAX_LEG_AMOUNT));

/** A floor is the lowest balance allowed: 0 forbids a net debit, negative is a credit line, null is no floor. */
export const floor = z.nullable(z.int().check(z.minimum(-MAX_LEG_AMOUNT), z.maximum(MAX_LEG_AMOUNT)));

/**
 * How many items a credit-mostly account (revenue, settlement, a rewards pool) is spread over: its
 * credits land on one of them, chosen by the transaction, so one account takes more writes per
 * second than one DynamoDB item can; balances sum them; debits and holds use the account's own
 * item, which first sweeps the shards in when it is short. 1: not spread. Can only be raised.
 */
export const shards = z.int().check(
  z.minimum(1),
  z.maximum(MAX_ACCOUNT_SHARDS),
  z.describe(
    'Items the account is spread over (1: not spread). Credits land on one shard, chosen by the transaction, so a credit-mostly account (revenue, settlement) takes more writes per second than one item; balances and entries include every shard; debits, holds and preconditions use the account itself, which sweeps the shards in when short, so floors stay exact. Freezing and closing apply to every shard. Can only be raised; on a sharded account, credits landing on shards do not change `version`.',
  ),
);

export const legInput = z.strictObject({ account_id: uuid, direction, amount: legAmount, commodity });

export const legOutput = z.object({
  account_id: uuid,
  owner_type: z.string(),
  owner_id: uuid,
  purpose: z.string(),
  direction,
  amount: z.int(),
  commodity: z.string(),
});

export const ledgerCreate = z.strictObject({ name, commodity, metadata: z.optional(metadata) });

export const ledger = z.object({
  id: uuid,
  name: z.string(),
  commodity: z.string(),
  metadata: z.record(z.string(), z.string()),
  closed_through: z.nullable(timestamp),
  created_at: timestamp,
});

export const accountCreate = z.strictObject({
  owner_type: label,
  owner_id: uuid,
  purpose: label,
  commodity,
  floor: z._default(floor, 0),
  shards: z._default(shards, 1),
  metadata: z.optional(metadata),
});

export const accountStatus = z.enum(['active', 'frozen', 'closed']);

export const accountUpdate = someField(
  z.strictObject({ floor: z.optional(floor), status: z.optional(accountStatus), shards: z.optional(shards) }),
  'set floor, status, shards or several',
);

export const account = z.object({
  id: uuid,
  ledger_id: uuid,
  owner_type: z.string(),
  owner_id: uuid,
  purpose: z.string(),
  commodity: z.string(),
  floor: z.nullable(z.int()),
  status: accountStatus,
  balance: z.object({
    /** Credits minus debits of posted transactions. */
    posted: z.int(),
    pending_debits: z.int(),
    pending_credits: z.int(),
    /** posted minus pending debits: what a new debit may use, down to the floor. */
    available: z.int(),
  }),
  /**
   * Increases by one on every change of the account's own item; `version_is` on a posting compares
   * against it. On a sharded account, credits landing on shards do not move it.
   */
  version: z.int(),
  shards,
  metadata: z.record(z.string(), z.string()),
  created_at: timestamp,
  updated_at: timestamp,
});

export const entry = z.object({
  transaction_id: uuid,
  account_id: uuid,
  type: z.string(),
  direction,
  amount: z.int(),
  commodity: z.string(),
  effective_at: timestamp,
  created_at: timestamp,
});

const postingFields = {
  type: label,
  legs: z.array(legInput).check(z.minLength(2), z.maxLength(MAX_LEGS)),
  metadata: z.optional(metadata),
  reference_id: z.optional(uuid),
};

/** Each listed account must keep at least this available balance after the posting (or reservation). */
const minAvailableAfter = z.optional(
  z
    .array(z.strictObject({ account_id: uuid, amount: z.int().check(z.minimum(-MAX_LEG_AMOUNT), z.maximum(MAX_LEG_AMOUNT)) }))
    .check(z.maxLength(MAX_LEGS)),
);

export const postingCreate = oneOrMoreOf(
  z.strictObject({
    ...postingFields,
    legs: z.optional(z.array(legInput).check(z.minLength(2), z.maxLength(MAX_LEGS))),
    effective_at: z.optional(timestamp),
    /** Each listed account must still be at this version (optimistic concurrency). */
    version_is: z.optional(z.array(z.strictObject({ account_id: uuid, version: z.int().check(z.minimum(0)) })).check(z.maxLength(MAX_LEGS))),
    /** Each listed account must keep at least this available balance after the posting. */
    min_available_after: minAvailableAfter,
    /** Consumed with the money: the claim's running total may not pass `max`. */
    limit_claims: z.optional(
      z
        .array(
          z.strictObject({
            key: z.string().check(z.regex(/^[A-Za-z0-9:._-]{1,200}$/, 'letters, digits and : . _ - up to 200')),
            amount: legAmount,
            max: z.int().check(z.minimum(0), z.maximum(MAX_LEG_AMOUNT)),
            /** When the claim's window ends; the total is forgotten some time after. */
            expires_at: z.optional(timestamp),
          }),
        )
        .check(z.maxLength(MAX_CLAIMS)),
    ),
    /** Posts this pending reservation: its debits cap the posting's debits; the rest is released. */
    post_pending_id: z.optional(uuid),
  }),
  ['legs', 'post_pending_id'],
  'legs are required unless post_pending_id is set',
  ['legs'],
);

export const transaction = z.object({
  id: uuid,
  ledger_id: uuid,
  type: z.string(),
  status: z.literal('posted'),
  reference_id: z.nullable(uuid),
  metadata: z.record(z.string(), z.string()),
  exchange_id: z.nullable(uuid),
  reverses_txn_id: z.nullable(uuid),
  reversed_by: z.nullable(uuid),
  pending_id: z.nullable(uuid),
  legs: z.array(legOutput),
  effective_at: timestamp,
  created_at: timestamp,
});

export const pendingCreate = z.strictObject({
  ...postingFields,
  /** After this time a scheduled worker voids the reservation (status `expired`). */
  expires_at: z.optional(timestamp),
  /** Each listed account must keep at least this available balance after the reservation (a payout leaves its merchant's refund reserve). */
  min_available_after: minAvailableAfter,
});

export const pendingStatus = z.enum(['pending', 'posted', 'voided', 'expired']);

export const pending = z.object({
  id: uuid,
  ledger_id: uuid,
  type: z.string(),
  status: pendingStatus,
  reference_id: z.nullable(uuid),
  metadata: z.record(z.string(), z.string()),
  legs: z.array(legOutput),
  expires_at: z.nullable(timestamp),
  transaction_id: z.nullable(uuid),
  created_at: timestamp,
  resolved_at: z.nullable(timestamp),
});

export const reversalCreate = z.optional(z.strictObject({ effective_at: z.optional(timestamp), metadata: z.optional(metadata) }));

export const periodClose = z.strictObject({ closed_through: timestamp });
export const period = z.object({ ledger_id: uuid, closed_through: timestamp });

export const idempotencyRecord = z.object({
  key: z.string(),
  operation: z.string(),
  status_code: z.int(),
  response: z.unknown(),
  created_at: timestamp,
  expires_at: timestamp,
});

export const rollup = z.object({
  ledger_id: uuid,
  rows: z.array(
    z.object({
      owner_type: z.string(),
      purpose: z.string(),
      commodity: z.string(),
      balance: z.int(),
      pending_debits: z.int(),
      pending_credits: z.int(),
      accounts: z.int(),
    }),
  ),
  commodities: z.array(z.object({ commodity: z.string(), total: z.int(), balanced: z.boolean() })),
  /** Every commodity nets to zero across the ledger. */
  balanced: z.boolean(),
});

export const feedEvent = z.object({
  /** The transaction id; ids sort by commit order within the settle window (docs/ledger.md). */
  id: uuid,
  type: z.literal('transaction.posted'),
  created_at: timestamp,
  transaction,
});

/** A listing's query; `limit` is clamped to 1..100 (events: 500), not refused. */
export const listQuery = z.strictObject({ cursor, limit: pageLimit() });
export const transactionsQuery = z.extend(listQuery, { type: z.optional(z.string().check(z.maxLength(40))) });
export const eventsQuery = z.strictObject({ cursor: z.optional(uuid), limit: pageLimit(100, 500) });

export type LegInput = z.infer<typeof legInput>;
export type LegOutput = z.infer<typeof legOutput>;
export type Ledger = z.infer<typeof ledger>;
export type Account = z.infer<typeof account>;
export type Transaction = z.infer<typeof transaction>;
export type Pending = z.infer<typeof pending>;
export type PostingCreate = z.infer<typeof postingCreate>;
export type PendingCreate = z.infer<typeof pendingCreate>;
export type Entry = z.infer<typeof entry>;

/**
 * The API's contract as its consumers type it (the wallet takes these through
 * shared/ledger-client/contract.ts, as types only: nothing of this module is built on its side).
 * A request is what a consumer may send (`z.input`: a defaulted field may be left out), an answer
 * what the ledger writes (`z.output`).
 */
export type LedgerRequest = z.input<typeof ledgerCreate>;
export type AccountRequest = z.input<typeof accountCreate>;
export type AccountPatch = z.input<typeof accountUpdate>;
export type LegRequest = z.input<typeof legInput>;
export type PostingRequest = z.input<typeof postingCreate>;
export type PendingRequest = z.input<typeof pendingCreate>;
/** A listing's query as a consumer sends it: `limit` a number (on the wire its text, which the route coerces). */
export type ListQuery = Partial<z.output<typeof listQuery>>;
export type TransactionsQuery = Partial<z.output<typeof transactionsQuery>>;
export type EventsQuery = Partial<z.output<typeof eventsQuery>>;
/** A page of a listing: `data`, `has_more` and `next_cursor` (null on the last page). */
export type Page<T extends Parameters<typeof page>[0]> = z.output<ReturnType<typeof page<T>>>;
export type EntryPage = Page<typeof entry>;
export type TransactionPage = Page<typeof transaction>;
export type FeedEvent = z.output<typeof feedEvent>;
/** A page of the event feed: `has_more` says whether more is settled now; `next_cursor` is kept at the end, to poll from. */
export type FeedPage = z.output<ReturnType<typeof feedPage<typeof feedEvent>>>;
export type Rollup = z.output<typeof rollup>;
