import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { subscription } from './schemas';

/** The `data` of the subscription events (docs/webhooks.md), collected by shared/event-types.ts. */
export const subscriptionEventPayloads = {
  'subscription.charged': z
    .object({
      subscription,
      charge: z.object({ subscription_id: z.string(), period: z.int(), amount: z.int(), fee: z.int(), commission: z.int(), ledger_transaction_id: z.string(), charged_at: z.string() }),
    })
    .check(z.meta({ id: 'SubscriptionChargedEventData' })),
  'subscription.retry_scheduled': z.object({ subscription, reason: z.string() }).check(z.meta({ id: 'SubscriptionRetryScheduledEventData' })),
  'subscription.paused': z.object({ subscription, reason: z.string() }).check(z.meta({ id: 'SubscriptionPausedEventData' })),
  'subscription.resumed': z.object({ subscription }).check(z.meta({ id: 'SubscriptionResumedEventData' })),
  'subscription.canceled': z.object({ subscription }).check(z.meta({ id: 'SubscriptionCanceledEventData' })),
} as const satisfies EventPayloads;
