import * as z from 'zod';
import { cursor, pageLimit, someField, timestamp, uuid } from '../../http/schemas';
import { EVENT_FAMILIES, EVENT_TYPES, isEventFilter } from '../../events/names';

/** Request and response shapes of the webhook routes (spec part 2 "Webhook endpoint", part 4 item 22). */

export const ENDPOINT_STATUSES = ['active', 'disabled', 'deleted'] as const;
export const DISABLE_REASONS = ['gone', 'failing'] as const;
export const DELIVERY_ATTEMPT_STATUSES = ['succeeded', 'failed'] as const;
export const MAX_EVENT_FILTERS = 50;

const eventFilter = z
  .string()
  .max(80)
  .refine(isEventFilter, 'must be a known event type or a family wildcard such as topup.*')
  .meta({ enum: [...EVENT_TYPES, ...EVENT_FAMILIES.map((family) => `${family}.*`)] });

export const endpointCreate = z
  .object({
    url: z.string().min(1).max(2048),
    /** Omitted: every event the endpoint may receive. */
    event_filters: z.array(eventFilter).min(1).max(MAX_EVENT_FILTERS).optional(),
    description: z.string().max(500).optional(),
  })
  .strict();
export type EndpointCreate = z.infer<typeof endpointCreate>;

/** A change to an endpoint: any of its url (checked as at creation), filters (null: every event) and description. */
export const endpointPatch = someField(
  z
    .object({
      url: z.string().min(1).max(2048).optional(),
      event_filters: z.array(eventFilter).min(1).max(MAX_EVENT_FILTERS).nullable().optional(),
      description: z.string().max(500).nullable().optional(),
    })
    .strict(),
  'name at least one of url, event_filters, description',
);
export type EndpointPatch = z.infer<typeof endpointPatch>;

export const endpoint = z
  .object({
    id: uuid,
    /** Present on merchant endpoints. */
    client_id: uuid.optional(),
    url: z.string(),
    /** Null: every event the endpoint may receive. */
    /** Absent: the endpoint receives every event type. */
    event_filters: z.array(z.string()).optional(),
    description: z.string().nullable(),
    /** `disabled`: nothing is sent; events are kept as skipped deliveries until POST …/recover. */
    status: z.enum(ENDPOINT_STATUSES),
    /** Live endpoints (created with a live API key or by staff) accept https URLs only. */
    livemode: z.boolean(),
    /** During a secret rotation's overlap: until then every delivery is signed with the previous secret too. */
    previous_secret_expires_at: timestamp.optional(),
    /** Present while disabled. */
    disabled_at: timestamp.optional(),
    /** `gone`: the receiver answered 410; `failing`: every attempt failed for 5 days. */
    disabled_reason: z.enum(DISABLE_REASONS).optional(),
    created_at: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
export type Endpoint = z.infer<typeof endpoint>;

/** The creation answer: the only time the signing secret is shown. */
export const endpointWithSecret = endpoint
  .extend({
    secret: z
      .string()
      .describe(
        '`whsec_` + base64 of 32 random bytes. Shown once; store it now. Give it as shown to every verifier: X-Wallet-Signature is keyed by this string (Stripe-style verifiers), webhook-signature by the bytes its base64 stands for (Standard Webhooks and Svix verifiers).',
      ),
    standard_webhooks_secret: z
      .string()
      .meta({ deprecated: true })
      .describe('Deprecated: the same string as `secret`, which Standard Webhooks verifiers now take as it is. Kept for integrations that read it.'),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });
export type EndpointWithSecret = z.infer<typeof endpointWithSecret>;

export const deliveryAttempt = z
  .object({
    id: uuid,
    /** The delivery this attempt belongs to (one per event and endpoint, or one per manual redelivery). */
    delivery_id: uuid,
    event_id: uuid,
    event_type: z.string(),
    endpoint_id: uuid,
    client_id: uuid.optional(),
    /** 1-based; automatic deliveries make at most 12, a manual redelivery one. */
    attempt: z.number().int(),
    status: z.enum(DELIVERY_ATTEMPT_STATUSES),
    /** The receiver's HTTP status; null when none came (timeout, refused address, connection error). */
    response_code: z.number().int().nullable(),
    /** Why no answer came (`timeout`, `blocked_address: …`, `connection_error: …`, `dns_error: …`), or null. */
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    manual: z.boolean(),
    attempted_at: timestamp,
    /** When the next attempt is due; null when none will follow. */
    next_attempt_at: timestamp.nullable(),
    /**
     * What was sent: the request headers, signatures included (`webhook-id`, `webhook-timestamp`,
     * `webhook-signature`, `X-Wallet-Signature`; never the endpoint's secret). The body is the
     * event's envelope (`event_id`, as GET /v1/webhook_events lists it), not stored twice. Null for
     * an attempt recorded before attempts kept it.
     */
    request: z
      .object({ headers: z.record(z.string(), z.string()) })
      .nullable()
      .meta({ id: 'WebhookAttemptRequest' }),
    /** What the receiver answered besides `response_code`; null when no answer came (or recorded before attempts kept it). */
    response: z
      .object({
        /** A bounded set: content-type, content-length, content-encoding, retry-after, location, date, server, x-request-id (each at most 256 characters). */
        headers: z.record(z.string(), z.string()),
        /** The body's first 2 KiB (2,048 bytes), as UTF-8 text. */
        body: z.string(),
        /** True when the body was longer than what is kept. */
        body_truncated: z.boolean(),
      })
      .nullable()
      .meta({ id: 'WebhookAttemptResponse' }),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type DeliveryAttempt = z.infer<typeof deliveryAttempt>;

export const pageQuery = z.object({ cursor, limit: pageLimit() }).strict();

/** Delivery attempts, all or one event's (every delivery and redelivery of it). */
export const deliveriesQuery = z.object({ cursor, limit: pageLimit(), event_id: uuid.optional() }).strict();

/** The longest overlap of a rotation: a week to roll the new secret out to every receiver. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400;

export const rotateSecretRequest = z
  .object({
    /** How long the previous secret keeps signing too (default 24 h); 0 retires it at once. */
    overlap_seconds: z.number().int().min(0).max(MAX_ROTATION_OVERLAP_SECONDS).optional(),
  })
  .strict()
  .optional();

export const recoverRequest = z
  .object({
    /** Events created at or after this instant; at most 30 days back (the retention). */
    since: timestamp,
    /** Events created before this instant (exclusive); default now. */
    until: timestamp.optional(),
  })
  .strict();

export const recoveryResult = z
  .object({
    endpoint: endpoint,
    since: timestamp,
    until: timestamp,
    /** Deliveries queued again by this request, each a fresh series of up to 12 attempts. */
    queued: z.number().int(),
    /** Null when the whole window was covered; otherwise call again with `since` set to it. */
    next_since: timestamp.nullable(),
  })
  .meta({ id: 'WebhookRecovery' });
export type RecoveryResult = z.infer<typeof recoveryResult>;

export const endpointStats = z
  .object({
    endpoint_id: uuid,
    /** Start of the oldest hour counted: the last 24 full hours and the current one. */
    from: timestamp,
    to: timestamp,
    attempts: z.number().int(),
    successes: z.number().int(),
    failures: z.number().int(),
    /** Attempt durations in ms, as upper bounds of 25 % wide buckets; null without attempts. */
    latency_ms: z.object({ p50: z.number().int().nullable(), p99: z.number().int().nullable() }),
    /** Since when every attempt has failed; null after a success or before any failure. */
    failing_since: timestamp.nullable(),
  })
  .meta({ id: 'WebhookEndpointStats' });
export type EndpointStats = z.infer<typeof endpointStats>;

export const eventsQuery = z
  .object({
    /** An event type or a family wildcard (`topup.*`). */
    type: eventFilter.optional(),
    /** Exclusive bounds on created_at. */
    created_after: timestamp.optional(),
    created_before: timestamp.optional(),
    cursor,
    limit: pageLimit(),
  })
  .strict();

/**
 * The delivery envelope (spec part 2): what GET /v1/webhook_events lists and every delivery's body.
 * The generic shape; each emitted type's `data`: shared/event-types.ts (from each domain's event-payloads.ts).
 */
export const event = z
  .object({
    /** The event id (UUIDv7); receivers deduplicate on (tenant_id, id). */
    id: uuid,
    type: z.string(),
    tenant_id: uuid,
    /** Only on merchant events (product.*, order.*, inventory.*, import.*). */
    client_id: uuid.optional(),
    /** With milliseconds, UTC. */
    created_at: timestamp,
    /** Keyed by resource name, e.g. `{ "topup": {...} }`. */
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookEvent' });

export const redeliverRequest = z
  .object({
    /** One endpoint; omitted: every active endpoint that receives the event. */
    endpoint_id: uuid.optional(),
  })
  .strict()
  .optional();

export const redeliveryAccepted = z.object({
  event_id: uuid,
  /** One delivery per endpoint, each a single attempt signed at the time it is made. */
  deliveries: z.array(z.object({ id: uuid, endpoint_id: uuid })),
});
