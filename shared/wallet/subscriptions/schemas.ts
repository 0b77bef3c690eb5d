import * as z from '../../kernel/zod';
import { cursor, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { INTERVALS } from '../catalog/fields';

/** Request and response shapes of subscriptions (spec part 2, docs/subscriptions.md). */

export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'paused', 'canceled'] as const;

export const subscription = z
  .object({
    id: uuid,
    user_id: uuid,
    merchant_id: uuid,
    client_id: uuid,
    offering_id: uuid,
    plan_name: z.string(),
    /** Per period, fixed at signup: a price change of the plan does not change it. */
    amount: z.int(),
    /** The marketplace commission per charge, fixed at signup from the offering's (or client's) commission_bps. */
    commission: z.int(),
    currency: z.string(),
    interval: z.enum(INTERVALS),
    /** active; past_due while dunning retries; paused (pause_reason says why); canceled. */
    status: z.enum(SUBSCRIPTION_STATUSES),
    pause_reason: z.nullable(z.enum(['requested', 'dunning_exhausted', 'account_frozen', 'account_closed'])),
    /** When the next charge (or dunning retry) is due; null when paused or canceled. */
    next_charge_at: z.nullable(timestamp),
    /** Failed tries of the current period's charge (since the last resume: a resume starts dunning again). */
    retry_count: z.int(),
    /** Periods charged so far. */
    periods_charged: z.int(),
    /** With cancel at_period_end: the subscription ends instead of charging at next_charge_at. */
    cancel_at_period_end: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    canceled_at: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Subscription' }));

export const subscriptionListQuery = z.strictObject({
  user_id: z.optional(uuid),
  merchant_id: z.optional(uuid),
  status: z.optional(z.enum(SUBSCRIPTION_STATUSES)),
  ...createdRange,
  cursor,
  limit: pageLimit(),
});

export const cancelBody = z.pipe(
  z.optional(z.strictObject({ at_period_end: z._default(z.boolean(), false) })),
  z.transform((body: { at_period_end: boolean } | undefined) => body ?? { at_period_end: false }),
);
