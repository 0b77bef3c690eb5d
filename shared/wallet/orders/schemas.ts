import * as z from '../../kernel/zod';
import { cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of orders (docs/orders.md). */

export const ORDER_STATUSES = ['open', 'paid', 'canceled', 'expired'] as const;
export const MAX_ORDER_LINES = 25;
export const MAX_LINE_QUANTITY = 1_000;

export const orderCreate = z.strictObject({
  client_id: uuid,
  /** Optional for a user token or IdP token (its own user); required otherwise. */
  user_id: z.optional(uuid),
  lines: z
    .array(z.strictObject({ variant_id: uuid, quantity: z.int().check(z.minimum(1), z.maximum(MAX_LINE_QUANTITY)) }))
    .check(z.minLength(1), z.maxLength(MAX_ORDER_LINES)),
  metadata: z.optional(metadata),
});

export const orderLine = z.object({
  variant_id: uuid,
  offering_id: uuid,
  sku: z.string(),
  title: z.string(),
  option_values: z.array(z.string()),
  quantity: z.int(),
  unit_amount: z.int(),
  /** unit_amount × quantity. */
  amount: z.int(),
  /** The commission that applied to this line when the order was created. */
  commission_bps: z.int(),
});

export const order = z
  .object({
    id: uuid,
    client_id: uuid,
    user_id: uuid,
    status: z.enum(ORDER_STATUSES),
    lines: z.array(orderLine),
    /** The sum of the lines. */
    amount: z.int(),
    currency: z.string(),
    /** The marketplace commission, pinned at creation from each line's commission_bps. */
    commission: z.int(),
    commission_mode: z.enum(['deduct', 'add']),
    /** The payment fee charged when paid (the tenant's payment rule, pinned at creation); 0 until then. */
    fee: z.int(),
    payment_id: z.nullable(uuid),
    metadata: z.record(z.string(), z.string()),
    /** An open order holds its stock until then. */
    expires_at: timestamp,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Order' }));

export const orderListQuery = z.strictObject({
  status: z.optional(z.enum(ORDER_STATUSES)),
  client_id: z.optional(uuid),
  user_id: z.optional(uuid),
  ...createdRange,
  cursor,
  limit: pageLimit(),
});
