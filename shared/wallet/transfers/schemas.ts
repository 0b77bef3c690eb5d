import * as z from '../../kernel/zod';
import { cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of the transfers area: balances, transfers, transactions, limits, credit lines. */

/** One ledger leg's bound (2^45): a transfer's amount, a limit, a credit line. */
const MAX_AMOUNT = 2 ** 45;
const direction = z.enum(['debit', 'credit']);

export const balances = z.object({
  user_id: uuid,
  currency: z.string(),
  available: z.int(),
  pending: z.int(),
  posted: z.int(),
  credit_limit: z.int(),
});

export const transferCreate = z.strictObject({
  /** Optional for a user token (its own user); required otherwise. */
  from_user_id: z.optional(uuid),
  to_user_id: uuid,
  amount: z.int().check(z.minimum(1), z.maximum(MAX_AMOUNT)),
  description: z.optional(z.string().check(z.maxLength(500))),
  metadata: z.optional(metadata),
});

export const transfer = z.object({
  id: uuid,
  from_user_id: uuid,
  to_user_id: uuid,
  amount: z.int(),
  /** Paid by the sender on top of the amount. */
  fee: z.int(),
  currency: z.string(),
  status: z.literal('completed'),
  description: z.nullable(z.string()),
  metadata: z.record(z.string(), z.string()),
  ledger_transaction_id: uuid,
  created_at: timestamp,
});

export const transferListQuery = z.strictObject({ user_id: z.optional(uuid), ...createdRange, cursor, limit: pageLimit() });

export const transactionListQuery = z.strictObject({
  user_id: z.optional(uuid),
  type: z.optional(z.string().check(z.minLength(1), z.maxLength(40))),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(1500))),
  limit: pageLimit(),
});

export const walletTransaction = z.object({
  id: uuid,
  type: z.string(),
  currency: z.string(),
  direction: z.nullable(direction),
  amount: z.int(),
  legs: z.optional(z.array(z.object({ owner_type: z.string(), owner_id: uuid, purpose: z.string(), direction, amount: z.int(), commodity: z.string() }))),
  effective_at: timestamp,
  created_at: timestamp,
});

const limitMax = z.nullable(z.int().check(z.minimum(0), z.maximum(MAX_AMOUNT)));

/** A window's max, null (or omitted) for none. */
export const windowLimits = z.strictObject({ daily_max: z._default(limitMax, null), monthly_max: z._default(limitMax, null) });

export const limitsSet = z.strictObject({ p2p: windowLimits });

const windowLimitsOut = z.object({ daily_max: z.nullable(z.int()), monthly_max: z.nullable(z.int()) });
export const limits = z.object({ p2p: windowLimitsOut });

export const userLimitsSet = z.strictObject({ p2p: z.nullable(windowLimits) });

export const userLimits = z.object({
  user_id: uuid,
  /** The user's own limits; null: the tenant's apply. */
  p2p: z.nullable(windowLimitsOut),
  effective: limits,
});

export const creditLimitSet = z.strictObject({ credit_limit: z.int().check(z.minimum(0), z.maximum(MAX_AMOUNT)) });

export const creditLimitResult = z.object({
  user_id: uuid,
  account_id: uuid,
  credit_limit: z.int(),
  previous: z.int(),
});
