import * as z from 'zod';
import { metadata, oneOrMoreOf, someField, timestamp, uuid } from '../http/schemas';
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

export type LegInput = z.infer<typeof legInput>;
export type LegOutput = z.infer<typeof legOutput>;
export type Ledger = z.infer<typeof ledger>;
export type Account = z.infer<typeof account>;
export type Transaction = z.infer<typeof transaction>;
export type Pending = z.infer<typeof pending>;
export type PostingCreate = z.infer<typeof postingCreate>;
export type PendingCreate = z.infer<typeof pendingCreate>;
export type Entry = z.infer<typeof entry>;
