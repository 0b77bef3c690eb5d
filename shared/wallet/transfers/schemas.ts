import * as z from 'zod';
import { cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of the transfers area: balances, transfers, transactions, limits, credit lines. */

/** One ledger leg's bound (2^45): a transfer's amount, a limit, a credit line. */
const MAX_AMOUNT = 2 ** 45;
const direction = z.enum(['debit', 'credit']);

export const balances = z.object({
  user_id: uuid,
  currency: z.string(),
  available: z.number().int(),
  pending: z.number().int(),
  posted: z.number().int(),
  credit_limit: z.number().int(),
});

export const transferCreate = z
  .object({
    /** Optional for a user token (its own user); required otherwise. */
    from_user_id: uuid.optional(),
    to_user_id: uuid,
    amount: z.number().int().min(1).max(MAX_AMOUNT),
    description: z.string().max(500).optional(),
    metadata: metadata.optional(),
  })
  .strict();

export const transfer = z.object({
  id: uuid,
  from_user_id: uuid,
  to_user_id: uuid,
  amount: z.number().int(),
  /** Paid by the sender on top of the amount. */
  fee: z.number().int(),
  currency: z.string(),
  status: z.literal('completed'),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  ledger_transaction_id: uuid,
  created_at: timestamp,
});

export const transferListQuery = z.object({ user_id: uuid.optional(), ...createdRange, cursor, limit: pageLimit() }).strict();

export const transactionListQuery = z
  .object({ user_id: uuid.optional(), type: z.string().min(1).max(40).optional(), cursor: z.string().min(1).max(1500).optional(), limit: pageLimit() })
  .strict();

export const walletTransaction = z.object({
  id: uuid,
  type: z.string(),
  currency: z.string(),
  direction: direction.nullable(),
  amount: z.number().int(),
  legs: z
    .array(z.object({ owner_type: z.string(), owner_id: uuid, purpose: z.string(), direction, amount: z.number().int(), commodity: z.string() }))
    .optional(),
  effective_at: timestamp,
  created_at: timestamp,
});

const limitMax = z.number().int().min(0).max(MAX_AMOUNT).nullable();

/** A window's max, null (or omitted) for none. */
export const windowLimits = z.object({ daily_max: limitMax.default(null), monthly_max: limitMax.default(null) }).strict();

export const limitsSet = z.object({ p2p: windowLimits }).strict();

const windowLimitsOut = z.object({ daily_max: z.number().int().nullable(), monthly_max: z.number().int().nullable() });
export const limits = z.object({ p2p: windowLimitsOut });

export const userLimitsSet = z.object({ p2p: windowLimits.nullable() }).strict();

export const userLimits = z.object({
  user_id: uuid,
  /** The user's own limits; null: the tenant's apply. */
  p2p: windowLimitsOut.nullable(),
  effective: limits,
});

export const creditLimitSet = z.object({ credit_limit: z.number().int().min(0).max(MAX_AMOUNT) }).strict();

export const creditLimitResult = z.object({
  user_id: uuid,
  account_id: uuid,
  credit_limit: z.number().int(),
  previous: z.number().int(),
});
