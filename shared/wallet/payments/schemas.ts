import * as z from '../../kernel/zod';
import { cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of the payments area: payments, refunds (merchants: ../merchants/schemas.ts). */

/** One ledger leg's bound (2^45). */
const MAX_AMOUNT = 2 ** 45;
const amount = z.int().check(z.minimum(1), z.maximum(MAX_AMOUNT));

export const PAYMENT_STATUSES = ['authorized', 'captured', 'voided', 'expired', 'partially_refunded', 'refunded'] as const;

export const paymentCreate = z.strictObject({
  /** Optional for a user token (its own user); required otherwise. */
  user_id: z.optional(uuid),
  merchant_id: uuid,
  amount,
  /** The tenant's currency (the only one its ledger holds). */
  currency: z.string().check(z.regex(/^[A-Z]{3}$/)),
  /** false: authorize only (a hold), capture later. */
  capture: z._default(z.boolean(), true),
  description: z.optional(z.string().check(z.maxLength(500))),
  metadata: z.optional(metadata),
});

export const paymentCapture = z._default(z.strictObject({ amount: z.optional(amount) }), {});

export const payment = z
  .object({
    id: uuid,
    user_id: uuid,
    merchant_id: uuid,
    amount: z.int(),
    currency: z.string(),
    status: z.enum(PAYMENT_STATUSES),
    captured_amount: z.int(),
    refunded_amount: z.int(),
    /** The payment fee, out of the merchant's proceeds. */
    fee: z.int(),
    /** The marketplace commission: out of the merchant's proceeds (`deduct`) or on top for the payer (`add`). */
    commission: z.int(),
    commission_mode: z.enum(['deduct', 'add']),
    description: z.nullable(z.string()),
    metadata: z.record(z.string(), z.string()),
    hold_expires_at: z.nullable(timestamp),
    /** The ledger transaction that captured it (GET /v1/transactions/{id}); null until captured. */
    ledger_transaction_id: z.nullable(uuid),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Payment' }));

export const paymentListQuery = z.strictObject({ user_id: z.optional(uuid), status: z.optional(z.enum(PAYMENT_STATUSES)), ...createdRange, cursor, limit: pageLimit() });

export const refundCreate = z.strictObject({
  payment_id: uuid,
  amount: z.optional(amount),
  reason: z.optional(z.string().check(z.maxLength(500))),
  /** An order's payment: return every unit of the order to stock (restock movements), once per order. */
  restock: z.optional(z.boolean()),
});

export const refund = z
  .object({
    id: uuid,
    payment_id: uuid,
    user_id: uuid,
    merchant_id: uuid,
    amount: z.int(),
    currency: z.string(),
    status: z.literal('completed'),
    reason: z.nullable(z.string()),
    ledger_transaction_id: uuid,
    created_at: timestamp,
  })
  .check(z.meta({ id: 'Refund' }));

export const refundListQuery = z.strictObject({ payment_id: z.optional(uuid), user_id: z.optional(uuid), status: z.optional(z.literal('completed')), ...createdRange, cursor, limit: pageLimit() });
