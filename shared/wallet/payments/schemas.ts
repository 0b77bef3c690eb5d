import * as z from 'zod';
import { cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of the payments area: payments, refunds (merchants: ../merchants/schemas.ts). */

/** One ledger leg's bound (2^45). */
const MAX_AMOUNT = 2 ** 45;
const amount = z.number().int().min(1).max(MAX_AMOUNT);

export const PAYMENT_STATUSES = ['authorized', 'captured', 'voided', 'expired', 'partially_refunded', 'refunded'] as const;

export const paymentCreate = z
  .object({
    /** Optional for a user token (its own user); required otherwise. */
    user_id: uuid.optional(),
    merchant_id: uuid,
    amount,
    /** The tenant's currency (the only one its ledger holds). */
    currency: z.string().regex(/^[A-Z]{3}$/),
    /** false: authorize only (a hold), capture later. */
    capture: z.boolean().default(true),
    description: z.string().max(500).optional(),
    metadata: metadata.optional(),
  })
  .strict();

export const paymentCapture = z.object({ amount: amount.optional() }).strict().default({});

export const payment = z
  .object({
    id: uuid,
    user_id: uuid,
    merchant_id: uuid,
    amount: z.number().int(),
    currency: z.string(),
    status: z.enum(PAYMENT_STATUSES),
    captured_amount: z.number().int(),
    refunded_amount: z.number().int(),
    /** The payment fee, out of the merchant's proceeds. */
    fee: z.number().int(),
    /** The marketplace commission: out of the merchant's proceeds (`deduct`) or on top for the payer (`add`). */
    commission: z.number().int(),
    commission_mode: z.enum(['deduct', 'add']),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    hold_expires_at: timestamp.nullable(),
    /** The ledger transaction that captured it (GET /v1/transactions/{id}); null until captured. */
    ledger_transaction_id: uuid.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Payment' });

export const paymentListQuery = z.object({ user_id: uuid.optional(), status: z.enum(PAYMENT_STATUSES).optional(), ...createdRange, cursor, limit: pageLimit() }).strict();

export const refundCreate = z
  .object({
    payment_id: uuid,
    amount: amount.optional(),
    reason: z.string().max(500).optional(),
    /** An order's payment: return every unit of the order to stock (restock movements), once per order. */
    restock: z.boolean().optional(),
  })
  .strict();

export const refund = z
  .object({
    id: uuid,
    payment_id: uuid,
    user_id: uuid,
    merchant_id: uuid,
    amount: z.number().int(),
    currency: z.string(),
    status: z.literal('completed'),
    reason: z.string().nullable(),
    ledger_transaction_id: uuid,
    created_at: timestamp,
  })
  .meta({ id: 'Refund' });

export const refundListQuery = z.object({ payment_id: uuid.optional(), user_id: uuid.optional(), status: z.literal('completed').optional(), ...createdRange, cursor, limit: pageLimit() }).strict();
