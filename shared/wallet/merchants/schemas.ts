import * as z from 'zod';
import { cursor, metadata, pageLimit, someField, timestamp, uuid, createdRange } from '../../http/schemas';

/** Request and response shapes of merchants. */

/** One ledger leg's bound (2^45). */
const MAX_AMOUNT = 2 ** 45;

/** What a payout leaves behind on the settlement account for refunds (docs/payouts.md); 0 by default. */
const refundReserve = z.number().int().min(0).max(MAX_AMOUNT);

export const merchantCreate = z.object({ name: z.string().min(1).max(200), metadata: metadata.optional(), refund_reserve: refundReserve.optional() }).strict();

export const merchantUpdate = someField(
  z.object({ name: z.string().min(1).max(200).optional(), metadata: metadata.optional(), refund_reserve: refundReserve.optional() }).strict(),
  'name, metadata or refund_reserve is required',
);

export const merchant = z
  .object({
    id: uuid,
    name: z.string(),
    status: z.literal('active'),
    metadata: z.record(z.string(), z.string()),
    /** The settlement balance payouts leave behind for refunds, in minor units. */
    refund_reserve: z.number().int(),
    created_at: timestamp,
  })
  .meta({ id: 'Merchant' });

export const merchantListQuery = z.object({ ...createdRange, cursor, limit: pageLimit() }).strict();
