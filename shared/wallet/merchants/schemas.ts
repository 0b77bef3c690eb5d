import * as z from '../../kernel/zod';
import { cursor, metadata, pageLimit, someField, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of merchants. */

/** One ledger leg's bound (2^45). */
const MAX_AMOUNT = 2 ** 45;

/** What a payout leaves behind on the settlement account for refunds (docs/payouts.md); 0 by default. */
const refundReserve = z.int().check(z.minimum(0), z.maximum(MAX_AMOUNT));

export const merchantCreate = z.strictObject({ name: z.string().check(z.minLength(1), z.maxLength(200)), metadata: z.optional(metadata), refund_reserve: z.optional(refundReserve) });

export const merchantUpdate = someField(
  z.strictObject({ name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))), metadata: z.optional(metadata), refund_reserve: z.optional(refundReserve) }),
  'name, metadata or refund_reserve is required',
);

export const merchant = z
  .object({
    id: uuid,
    name: z.string(),
    status: z.literal('active'),
    metadata: z.record(z.string(), z.string()),
    /** The settlement balance payouts leave behind for refunds, in minor units. */
    refund_reserve: z.int(),
    created_at: timestamp,
  })
  .check(z.meta({ id: 'Merchant' }));

export const merchantListQuery = z.strictObject({ ...createdRange, cursor, limit: pageLimit() });
