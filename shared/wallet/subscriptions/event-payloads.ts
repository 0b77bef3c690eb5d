import * as z from 'zod';
import type { EventPayloads } from '../../events/names';
import { subscription } from './schemas';

/** The `data` of the subscription events (docs/webhooks.md), collected by shared/event-types.ts. */
export const subscriptionEventPayloads = {
  'subscription.charged': z
    .object({
      subscription,
      charge: z.object({ subscription_id: z.string(), period: z.number().int(), amount: z.number().int(), fee: z.number().int(), commission: z.number().int(), ledger_transaction_id: z.string(), charged_at: z.string() }),
    })
    .meta({ id: 'SubscriptionChargedEventData' }),
  'subscription.retry_scheduled': z.object({ subscription, reason: z.string() }).meta({ id: 'SubscriptionRetryScheduledEventData' }),
  'subscription.paused': z.object({ subscription, reason: z.string() }).meta({ id: 'SubscriptionPausedEventData' }),
  'subscription.resumed': z.object({ subscription }).meta({ id: 'SubscriptionResumedEventData' }),
  'subscription.canceled': z.object({ subscription }).meta({ id: 'SubscriptionCanceledEventData' }),
} as const satisfies EventPayloads;
