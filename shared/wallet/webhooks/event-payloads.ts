import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { DISABLE_REASONS, endpoint } from './schemas';

/** The `data` of the webhooks' own event (docs/webhooks.md), collected by shared/event-types.ts. */
export const webhookEventPayloads = {
  'webhook_endpoint.disabled': z
    .object({
      webhook_endpoint: endpoint,
      /** `gone`: the receiver answered 410; `failing`: every attempt failed for 5 days (and 10 deliveries). */
      reason: z.enum(DISABLE_REASONS),
    })
    .check(z.meta({ id: 'WebhookEndpointDisabledEventData' })),
} as const satisfies EventPayloads;
