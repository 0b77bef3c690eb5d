import * as z from '../../kernel/zod';
import { cursor, pageLimit, someField, timestamp, uuid } from '../../http/schemas';
import { EVENT_FAMILIES, EVENT_TYPES, isEventFilter } from '../../events/names';

/** Request and response shapes of the webhook routes (spec part 2 "Webhook endpoint", part 4 item 22). */

export const ENDPOINT_STATUSES = ['active', 'disabled', 'deleted'] as const;
export const DISABLE_REASONS = ['gone', 'failing'] as const;
export const DELIVERY_ATTEMPT_STATUSES = ['succeeded', 'failed'] as const;
export const MAX_EVENT_FILTERS = 50;

const eventFilter = z
  .string()
  .check(z.maxLength(80), z.refine(isEventFilter, 'must be a known event type or a family wildcard such as topup.*'))
  .check(z.meta({ enum: [...EVENT_TYPES, ...EVENT_FAMILIES.map((family) => `${family}.*`)] }));

export const endpointCreate = z.strictObject({
  url: z.string().check(z.minLength(1), z.maxLength(2048)),
  /** Omitted: every event the endpoint may receive. */
  event_filters: z.optional(z.array(eventFilter).check(z.minLength(1), z.maxLength(MAX_EVENT_FILTERS))),
  description: z.optional(z.string().check(z.maxLength(500))),
});
export type EndpointCreate = z.infer<typeof endpointCreate>;

/** A change to an endpoint: any of its url (checked as at creation), filters (null: every event) and description. */
export const endpointPatch = someField(
  z.strictObject({
    url: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
    event_filters: z.optional(z.nullable(z.array(eventFilter).check(z.minLength(1), z.maxLength(MAX_EVENT_FILTERS)))),
    description: z.optional(z.nullable(z.string().check(z.maxLength(500)))),
  }),
  'name at least one of url, event_filters, description',
);
export type EndpointPatch = z.infer<typeof endpointPatch>;

export const endpoint = z
  .object({
    id: uuid,
    /** Present on merchant endpoints. */
    client_id: z.optional(uuid),
    url: z.string(),
    /** Null: every event the endpoint may receive. */
    /** Absent: the endpoint receives every event type. */
    event_filters: z.optional(z.array(z.string())),
    description: z.nullable(z.string()),
    /** `disabled`: nothing is sent; events are kept as skipped deliveries until POST …/recover. */
    status: z.enum(ENDPOINT_STATUSES),
    /** Live endpoints (created with a live API key or by staff) accept https URLs only. */
    livemode: z.boolean(),
    /** During a secret rotation's overlap: until then every delivery is signed with the previous secret too. */
    previous_secret_expires_at: z.optional(timestamp),
    /** Present while disabled. */
    disabled_at: z.optional(timestamp),
    /** `gone`: the receiver answered 410; `failing`: every attempt failed for 5 days. */
    disabled_reason: z.optional(z.enum(DISABLE_REASONS)),
    created_at: timestamp,
  })
  // Registered, not a `z.meta` check: an object carrying a check keeps it through `z.extend` (and
  // refuses to have a key overwritten), and endpointWithSecret extends this one.
  .register(z.globalRegistry, { id: 'WebhookEndpoint' });
export type Endpoint = z.infer<typeof endpoint>;

/** The creation answer: the only time the signing secret is shown. */
export const endpointWithSecret = z
  .extend(endpoint, {
    secret: z
      .string()
      .check(
        z.describe(
          '`whsec_` + base64 of 32 random bytes. Shown once; store it now. Give it as shown to every verifier: X-Wallet-Signature is keyed by this string (Stripe-style verifiers), webhook-signature by the bytes its base64 stands for (Standard Webhooks and Svix verifiers).',
        ),
      ),
    standard_webhooks_secret: z
      .string()
      .check(z.meta({ deprecated: true }))
      .check(z.describe('Deprecated: the same string as `secret`, which Standard Webhooks verifiers now take as it is. Kept for integrations that read it.')),
  })
  .check(z.meta({ id: 'WebhookEndpointWithSecret' }));
export type EndpointWithSecret = z.infer<typeof endpointWithSecret>;

export const deliveryAttempt = z
  .object({
    id: uuid,
    /** The delivery this attempt belongs to (one per event and endpoint, or one per manual redelivery). */
    delivery_id: uuid,
    event_id: uuid,
    event_type: z.string(),
    endpoint_id: uuid,
    client_id: z.optional(uuid),
    /** 1-based; automatic deliveries make at most 12, a manual redelivery one. */
    attempt: z.int(),
    status: z.enum(DELIVERY_ATTEMPT_STATUSES),
    /** The receiver's HTTP status; null when none came (timeout, refused address, connection error). */
    response_code: z.nullable(z.int()),
    /** Why no answer came (`timeout`, `blocked_address: …`, `connection_error: …`, `dns_error: …`), or null. */
    error: z.nullable(z.string()),
    duration_ms: z.int(),
    manual: z.boolean(),
    attempted_at: timestamp,
    /** When the next attempt is due; null when none will follow. */
    next_attempt_at: z.nullable(timestamp),
    /**
     * What was sent: the request headers, signatures included (`webhook-id`, `webhook-timestamp`,
     * `webhook-signature`, `X-Wallet-Signature`; never the endpoint's secret). The body is the
     * event's envelope (`event_id`, as GET /v1/webhook_events lists it), not stored twice. Null for
     * an attempt recorded before attempts kept it.
     */
    request: z.nullable(z.object({ headers: z.record(z.string(), z.string()) })).check(z.meta({ id: 'WebhookAttemptRequest' })),
    /** What the receiver answered besides `response_code`; null when no answer came (or recorded before attempts kept it). */
    response: z
      .nullable(
        z.object({
          /** A bounded set: content-type, content-length, content-encoding, retry-after, location, date, server, x-request-id (each at most 256 characters). */
          headers: z.record(z.string(), z.string()),
          /** The body's first 2 KiB (2,048 bytes), as UTF-8 text. */
          body: z.string(),
          /** True when the body was longer than what is kept. */
          body_truncated: z.boolean(),
        }),
      )
      .check(z.meta({ id: 'WebhookAttemptResponse' })),
  })
  .check(z.meta({ id: 'WebhookDeliveryAttempt' }));
export type DeliveryAttempt = z.infer<typeof deliveryAttempt>;

export const pageQuery = z.strictObject({ cursor, limit: pageLimit() });

/** Delivery attempts, all or one event's (every delivery and redelivery of it). */
export const deliveriesQuery = z.strictObject({ cursor, limit: pageLimit(), event_id: z.optional(uuid) });

/** The longest overlap of a rotation: a week to roll the new secret out to every receiver. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400;

export const rotateSecretRequest = z.optional(
  z.strictObject({
    /** How long the previous secret keeps signing too (default 24 h); 0 retires it at once. */
    overlap_seconds: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_ROTATION_OVERLAP_SECONDS))),
  }),
);

export const recoverRequest = z.strictObject({
  /** Events created at or after this instant; at most 30 days back (the retention). */
  since: timestamp,
  /** Events created before this instant (exclusive); default now. */
  until: z.optional(timestamp),
});

export const recoveryResult = z
  .object({
    endpoint: endpoint,
    since: timestamp,
    until: timestamp,
    /** Deliveries queued again by this request, each a fresh series of up to 12 attempts. */
    queued: z.int(),
    /** Null when the whole window was covered; otherwise call again with `since` set to it. */
    next_since: z.nullable(timestamp),
  })
  .check(z.meta({ id: 'WebhookRecovery' }));
export type RecoveryResult = z.infer<typeof recoveryResult>;

export const endpointStats = z
  .object({
    endpoint_id: uuid,
    /** Start of the oldest hour counted: the last 24 full hours and the current one. */
    from: timestamp,
    to: timestamp,
    attempts: z.int(),
    successes: z.int(),
    failures: z.int(),
    /** Attempt durations in ms, as upper bounds of 25 % wide buckets; null without attempts. */
    latency_ms: z.object({ p50: z.nullable(z.int()), p99: z.nullable(z.int()) }),
    /** Since when every attempt has failed; null after a success or before any failure. */
    failing_since: z.nullable(timestamp),
  })
  .check(z.meta({ id: 'WebhookEndpointStats' }));
export type EndpointStats = z.infer<typeof endpointStats>;

export const eventsQuery = z.strictObject({
  /** An event type or a family wildcard (`topup.*`). */
  type: z.optional(eventFilter),
  /** Exclusive bounds on created_at. */
  created_after: z.optional(timestamp),
  created_before: z.optional(timestamp),
  cursor,
  limit: pageLimit(),
});

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
    client_id: z.optional(uuid),
    /** With milliseconds, UTC. */
    created_at: timestamp,
    /** Keyed by resource name, e.g. `{ "topup": {...} }`. */
    data: z.record(z.string(), z.unknown()),
  })
  // Registered, not a `z.meta` check: shared/event-types.ts extends it with each type's `type` and
  // `data`, and an object carrying a check refuses to have a key overwritten by `z.extend`.
  .register(z.globalRegistry, { id: 'WebhookEvent' });

export const redeliverRequest = z.optional(
  z.strictObject({
    /** One endpoint; omitted: every active endpoint that receives the event. */
    endpoint_id: z.optional(uuid),
  }),
);

export const redeliveryAccepted = z.object({
  event_id: uuid,
  /** One delivery per endpoint, each a single attempt signed at the time it is made. */
  deliveries: z.array(z.object({ id: uuid, endpoint_id: uuid })),
});
