import * as z from './kernel/zod';
import { EVENT_TYPES, type EventType } from './events/names';
import { catalogEventPayloads } from './wallet/catalog/event-payloads';
import { orderEventPayloads } from './wallet/orders/event-payloads';
import { paymentEventPayloads } from './wallet/payments/event-payloads';
import { payoutEventPayloads } from './wallet/payouts/event-payloads';
import { rewardEventPayloads } from './wallet/rewards/event-payloads';
import { subscriptionEventPayloads } from './wallet/subscriptions/event-payloads';
import { tenancyEventPayloads } from './wallet/tenancy/event-payloads';
import { topupEventPayloads } from './wallet/topups/event-payloads';
import { transferEventPayloads } from './wallet/transfers/event-payloads';
import { webhookEventPayloads } from './wallet/webhooks/event-payloads';
import { event } from './wallet/webhooks/schemas';

/**
 * THE event manifest: the delivery envelope (spec part 2) and the `data` shape of every event
 * type, for the OpenAPI document and for receivers' own validation. Each domain keeps its payload
 * schemas beside its own (shared/wallet/<domain>/event-payloads.ts) and this list joins them, as
 * shared/routes.ts joins the routes: a domain with events adds one line here, and webhooks/
 * imports none of them. Every type of shared/events/names.ts has its entry (the typecheck holds
 * it: a name added there without a payload schema fails). This module pulls in the payload
 * schemas of every area: the manifests, documentation and tests import it, never a function
 * (filters and matching need only shared/events/names.ts).
 */

export const eventType = z.enum(EVENT_TYPES);

/** Any event: what GET /v1/webhook_events lists and every delivery's body (generic `data`). */
export const eventEnvelope = event;

export type EventEnvelopeShape = z.infer<typeof eventEnvelope>;

/** `data` of each event type, keyed by type. */
export const eventPayloads = {
  ...tenancyEventPayloads,
  ...topupEventPayloads,
  ...transferEventPayloads,
  ...paymentEventPayloads,
  ...catalogEventPayloads,
  ...orderEventPayloads,
  ...subscriptionEventPayloads,
  ...rewardEventPayloads,
  ...payoutEventPayloads,
  ...webhookEventPayloads,
} as const satisfies Record<EventType, z.core.$ZodType>;

export type EmittedEventType = keyof typeof eventPayloads;

const componentName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Event`;

/** The envelope of each emitted type with its `data` shape (`type` a literal), e.g. `TransferCompletedEvent`. */
export const typedEventEnvelopes = Object.fromEntries(
  Object.entries(eventPayloads).map(([type, data]) => [
    type,
    z.extend(eventEnvelope, { type: z.literal(type), data }).check(z.meta({ id: componentName(type) })),
  ]),
) as unknown as { [T in EmittedEventType]: z.ZodMiniObject };

/**
 * One schema for "any delivery": the typed envelopes first, then the generic one for types not
 * described yet (receivers ignore unknown types). For the OpenAPI generator's `webhooks` or a
 * response schema: validation accepts every envelope, documentation shows each shape.
 */
export const anyEventEnvelope = z.union([...Object.values(typedEventEnvelopes), eventEnvelope]).check(z.meta({ id: 'WebhookEventAny' }));
