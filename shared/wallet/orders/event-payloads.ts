import * as z from '../../kernel/zod';
import type { EventPayloads } from '../../events/names';
import { order } from './schemas';

/** The `data` of the order events (docs/webhooks.md), collected by shared/event-types.ts. */
export const orderEventPayloads = {
  'order.created': z.object({ order }).check(z.meta({ id: 'OrderCreatedEventData' })),
  'order.paid': z.object({ order }).check(z.meta({ id: 'OrderPaidEventData' })),
  'order.canceled': z.object({ order }).check(z.meta({ id: 'OrderCanceledEventData' })),
  'order.expired': z.object({ order }).check(z.meta({ id: 'OrderExpiredEventData' })),
} as const satisfies EventPayloads;
