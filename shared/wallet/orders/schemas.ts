import * as z from 'zod';
import { cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of orders (docs/orders.md). */

export const ORDER_STATUSES = ['open', 'paid', 'canceled', 'expired'] as const;
export const MAX_ORDER_LINES = 25;
export const MAX_LINE_QUANTITY = 1_000;

export const orderCreate = z
  .object({
    client_id: uuid,
    /** Optional for a user token or IdP token (its own user); required otherwise. */
    user_id: uuid.optional(),
    lines: z
      .array(z.object({ variant_id: uuid, quantity: z.number().int().min(1).max(MAX_LINE_QUANTITY) }).strict())
      .min(1)
      .max(MAX_ORDER_LINES),
    metadata: metadata.optional(),
  })
  .strict();

export const orderLine = z.object({
  variant_id: uuid,
  offering_id: uuid,
  sku: z.string(),
  title: z.string(),
  option_values: z.array(z.string()),
  quantity: z.number().int(),
  unit_amount: z.number().int(),
  /** unit_amount × quantity. */
  amount: z.number().int(),
  /** The commission that applied to this line when the order was created. */
  commission_bps: z.number().int(),
});

export const order = z
  .object({
    id: uuid,
    client_id: uuid,
    user_id: uuid,
    status: z.enum(ORDER_STATUSES),
    lines: z.array(orderLine),
    /** The sum of the lines. */
    amount: z.number().int(),
    currency: z.string(),
    /** The marketplace commission, pinned at creation from each line's commission_bps. */
    commission: z.number().int(),
    commission_mode: z.enum(['deduct', 'add']),
    /** The payment fee charged when paid (the tenant's payment rule, pinned at creation); 0 until then. */
    fee: z.number().int(),
    payment_id: uuid.nullable(),
    metadata: z.record(z.string(), z.string()),
    /** An open order holds its stock until then. */
    expires_at: timestamp,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Order' });

export const orderListQuery = z
  .object({ status: z.enum(ORDER_STATUSES).optional(), client_id: uuid.optional(), user_id: uuid.optional(), ...createdRange, cursor, limit: pageLimit() })
  .strict();
