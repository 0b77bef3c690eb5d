import * as z from 'zod';
import { cursor, metadata, oneOrMoreOf, type page, pageLimit, someField, timestamp, uuid } from '../http/schemas';
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
  .regex(/^[A-Z][A-Z0-9_]{1,15}$/, 'an upper-case code of 2 to 16 characters, such as USD or POINTS');
const name = z.string().trim().min(1).max(100);
const label = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower-case letters, digits and underscores, up to 40');

export const direction = z.enum(['debit', 'credit']);
export const legAmount = z.number().int().min(1).max(MAX_LEG_AMOUNT);

/** A floor is the lowest balance allowed: 0 forbids a net debit, negative is a credit line, null is no floor. */
export const floor = z.number().int().min(-MAX_LEG_AMOUNT).max(MAX_LEG_AMOUNT).nullable();

/**
 * How many items a credit-mostly account (revenue, settlement, a rewards pool) is spread over: its
 * credits land on one of them, chosen by the transaction, so one account takes more writes per
 * second than one DynamoDB item can; balances sum them; debits and holds use the account's own
 * item, which first sweeps the shards in when it is short. 1: not spread. Can only be raised.
 */
export const shards = z
  .number()
  .int()
  .min(1)
  .max(MAX_ACCOUNT_SHARDS)
  .describe(
    'Items the account is spread over (1: not spread). Credits land on one shard, chosen by the transaction, so a credit-mostly account (revenue, settlement) takes more writes per second than one item; balances and entries include every shard; debits, holds and preconditions use the account itself, which sweeps the shards in when short, so floors stay exact. Freezing and closing apply to every shard. Can only be raised; on a sharded account, credits landing on shards do not change `version`.',
  );

export const legInput = z
  .object({ account_id: uuid, direction, amount: legAmount, commodity })
  .strict();

export const legOutput = z.object({
  account_id: uuid,
  owner_type: z.string(),
  owner_id: uuid,
  purpose: z.string(),
  direction,
  amount: z.number().int(),
  commodity: z.string(),
});

export const ledgerCreate = z
  .object({ name, commodity, metadata: metadata.optional() })
  .strict();

export const ledger = z.object({
  id: uuid,
  name: z.string(),
  commodity: z.string(),
  metadata: z.record(z.string(), z.string()),
  closed_through: timestamp.nullable(),
  created_at: timestamp,
});

export const accountCreate = z
  .object({
    owner_type: label,
    owner_id: uuid,
    purpose: label,
    commodity,
    floor: floor.default(0),
    shards: shards.default(1),
    metadata: metadata.optional(),
  })
  .strict();

export const accountStatus = z.enum(['active', 'frozen', 'closed']);

export const accountUpdate = someField(
  z.object({ floor: floor.optional(), status: accountStatus.optional(), shards: shards.optional() }).strict(),
  'set floor, status, shards or several',
);

export const account = z.object({
  id: uuid,
  ledger_id: uuid,
  owner_type: z.string(),
  owner_id: uuid,
  purpose: z.string(),
  commodity: z.string(),
  floor: z.number().int().nullable(),
  status: accountStatus,
  balance: z.object({
    /** Credits minus debits of posted transactions. */
    posted: z.number().int(),
    pending_debits: z.number().int(),
    pending_credits: z.number().int(),
    /** posted minus pending debits: what a new debit may use, down to the floor. */
    available: z.number().int(),
  }),
  /**
   * Increases by one on every change of the account's own item; `version_is` on a posting compares
   * against it. On a sharded account, credits landing on shards do not move it.
   */
  version: z.number().int(),
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
  amount: z.number().int(),
  commodity: z.string(),
  effective_at: timestamp,
  created_at: timestamp,
});

const postingFields = {
  type: label,
  legs: z.array(legInput).min(2).max(MAX_LEGS),
  metadata: metadata.optional(),
  reference_id: uuid.optional(),
};

/** Each listed account must keep at least this available balance after the posting (or reservation). */
const minAvailableAfter = z
  .array(z.object({ account_id: uuid, amount: z.number().int().min(-MAX_LEG_AMOUNT).max(MAX_LEG_AMOUNT) }).strict())
  .max(MAX_LEGS)
  .optional();

export const postingCreate = oneOrMoreOf(
  z
  .object({
    ...postingFields,
    legs: z.array(legInput).min(2).max(MAX_LEGS).optional(),
    effective_at: timestamp.optional(),
    /** Each listed account must still be at this version (optimistic concurrency). */
    version_is: z.array(z.object({ account_id: uuid, version: z.number().int().min(0) }).strict()).max(MAX_LEGS).optional(),
    /** Each listed account must keep at least this available balance after the posting. */
    min_available_after: minAvailableAfter,
    /** Consumed with the money: the claim's running total may not pass `max`. */
    limit_claims: z
      .array(
        z
          .object({
            key: z.string().regex(/^[A-Za-z0-9:._-]{1,200}$/, 'letters, digits and : . _ - up to 200'),
            amount: legAmount,
            max: z.number().int().min(0).max(MAX_LEG_AMOUNT),
            /** When the claim's window ends; the total is forgotten some time after. */
            expires_at: timestamp.optional(),
          })
          .strict(),
      )
      .max(MAX_CLAIMS)
      .optional(),
    /** Posts this pending reservation: its debits cap the posting's debits; the rest is released. */
    post_pending_id: uuid.optional(),
  })
  .strict(),
  ['legs', 'post_pending_id'],
  'legs are required unless post_pending_id is set',
  ['legs'],
);

export const transaction = z.object({
  id: uuid,
  ledger_id: uuid,
  type: z.string(),
  status: z.literal('posted'),
  reference_id: uuid.nullable(),
  metadata: z.record(z.string(), z.string()),
  exchange_id: uuid.nullable(),
  reverses_txn_id: uuid.nullable(),
  reversed_by: uuid.nullable(),
  pending_id: uuid.nullable(),
  legs: z.array(legOutput),
  effective_at: timestamp,
  created_at: timestamp,
});

export const pendingCreate = z
  .object({
    ...postingFields,
    /** After this time a scheduled worker voids the reservation (status `expired`). */
    expires_at: timestamp.optional(),
    /** Each listed account must keep at least this available balance after the reservation (a payout leaves its merchant's refund reserve). */
    min_available_after: minAvailableAfter,
  })
  .strict();

export const pendingStatus = z.enum(['pending', 'posted', 'voided', 'expired']);

export const pending = z.object({
  id: uuid,
  ledger_id: uuid,
  type: z.string(),
  status: pendingStatus,
  reference_id: uuid.nullable(),
  metadata: z.record(z.string(), z.string()),
  legs: z.array(legOutput),
  expires_at: timestamp.nullable(),
  transaction_id: uuid.nullable(),
  created_at: timestamp,
  resolved_at: timestamp.nullable(),
});

export const reversalCreate = z
  .object({ effective_at: timestamp.optional(), metadata: metadata.optional() })
  .strict()
  .optional();

export const periodClose = z.object({ closed_through: timestamp }).strict();
export const period = z.object({ ledger_id: uuid, closed_through: timestamp });

export const idempotencyRecord = z.object({
  key: z.string(),
  operation: z.string(),
  status_code: z.number().int(),
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
      balance: z.number().int(),
      pending_debits: z.number().int(),
      pending_credits: z.number().int(),
      accounts: z.number().int(),
    }),
  ),
  commodities: z.array(z.object({ commodity: z.string(), total: z.number().int(), balanced: z.boolean() })),
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
export const listQuery = z.object({ cursor, limit: pageLimit() }).strict();
export const transactionsQuery = listQuery.extend({ type: z.string().max(40).optional() });
export const eventsQuery = z.object({ cursor: uuid.optional(), limit: pageLimit(100, 500) }).strict();

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
export type Page<T extends z.ZodType> = z.output<ReturnType<typeof page<T>>>;
export type EntryPage = Page<typeof entry>;
export type TransactionPage = Page<typeof transaction>;
export type FeedEvent = z.output<typeof feedEvent>;
export type FeedPage = Page<typeof feedEvent>;
export type Rollup = z.output<typeof rollup>;
