import { epochSeconds } from '../../kernel/clock';
import { bool, codec, int, nullable, oneOf, opt, orElse, str, stored, type Shape } from '../../kernel/codec';
import { EVENT_RETENTION_DAYS, type EventEnvelope } from '../../events/outbox';
import { MAX_QUEUE_DELAY_SECONDS, type QueueTransport } from '../../aws/transport';
import type { StoreDeps } from '../deps';
import { getItem, isConditionalCheckFailed, putItem, queryPage, updateItem, type Page } from '../../aws/store';
import type { EndpointRecord } from './endpoints';
import { webhookKeys, type Owner } from './keys';
import type { DeliveryAttempt } from './schemas';

/**
 * Deliveries (spec part 6 "Retries"): their records, their queue messages and their listing. The
 * attempt itself is ./attempts.ts.
 *
 * A delivery is one event for one endpoint: the automatic one (written by the relay under a
 * condition, so a replayed stream record cannot make a second) or a manual redelivery. Attempts
 * travel through the `webhookDeliveries` queue as messages `{event_id, endpoint_id, redelivery_id?,
 * round?, attempt, not_before}`. An automatic delivery for a disabled endpoint is written
 * `skipped` and queued nowhere; a recovery (./recovery.ts) arms it again, as a new round of
 * attempts, and the relay queues that round from the stream. Delays past SQS's 900 s limit hop
 * through the queue with `not_before` (docs/webhooks.md explains why not EventBridge Scheduler).
 */

export const DELIVERY_QUEUE = 'webhookDeliveries';

/** Seconds before attempt n (index n - 1), counted from the previous attempt: 12 attempts over about 23 h. */
export const RETRY_DELAYS_SECONDS: readonly number[] = [0, 60, 300, 900, 1_800, 3_600, 7_200, 10_800, 14_400, 14_400, 14_400, 14_400];
export const MAX_AUTOMATIC_ATTEMPTS = RETRY_DELAYS_SECONDS.length;
/** A manual redelivery is one attempt; another can be asked for. */
export const MANUAL_ATTEMPTS = 1;
/** Spec part 8: the delivery timeout. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Spec part 8: events, delivery attempts and redelivery are kept 30 days. */
export const HISTORY_RETENTION_SECONDS = EVENT_RETENTION_DAYS * 86_400;
/**
 * How long a worker holds an attempt: longer than the timeout plus recording, shorter than the
 * queue's visibility timeout, so a crashed worker's message comes back to a released claim.
 */
export const ATTEMPT_CLAIM_MS = 45_000;

/** `skipped`: the endpoint was disabled; nothing was (or will be) sent unless a recovery arms it again. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled' | 'skipped';

export interface DeliveryRecord {
  pk: string;
  sk: 'DELIVERY';
  entity: 'webhook_delivery';
  id: string;
  origin: 'auto' | 'manual';
  tenant_id: string;
  /** The endpoint's client (merchant endpoints), which decides where attempts are listed. */
  client_id: string | null;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  redelivery_id: string | null;
  status: DeliveryStatus;
  /** Series of attempts: 0, then one more per recovery; messages of another round are stale. */
  round: number;
  max_attempts: number;
  /** Attempts recorded so far. */
  attempts_made: number;
  /** The highest attempt handed to the queue. */
  scheduled_attempt: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_code: number | null;
  /** Why it stopped without success: `endpoint_deleted`, `event_expired` (canceled), `endpoint_disabled` (skipped). */
  cancel_reason: string | null;
  claim_token?: string;
  claim_expires_ms?: number;
  /** A recovered delivery waiting for the one before it (its key) to end (./recovery-chain.ts). */
  awaiting?: string;
  /** The recovered delivery that waits for this one to end (its key). */
  chain_next?: string;
  created_at: string;
  updated_at: string;
  expires_at_epoch: number;
}

/** The delivery item's fields (its keys among them: it is changed at `pk`, `sk`). */
export const deliveryShape: Shape<DeliveryRecord> = {
  pk: str,
  sk: oneOf('DELIVERY'),
  entity: oneOf('webhook_delivery'),
  id: str,
  origin: oneOf('auto', 'manual'),
  tenant_id: str,
  client_id: nullable(str),
  event_id: str,
  event_type: str,
  endpoint_id: str,
  redelivery_id: nullable(str),
  status: oneOf('pending', 'succeeded', 'failed', 'canceled', 'skipped'),
  // Deliveries written before recoveries had no rounds: theirs is round 0.
  round: orElse(int, () => 0),
  max_attempts: int,
  attempts_made: int,
  scheduled_attempt: int,
  next_attempt_at: nullable(str),
  last_attempt_at: nullable(str),
  last_response_code: nullable(int),
  cancel_reason: nullable(str),
  claim_token: opt(str),
  claim_expires_ms: opt(int),
  awaiting: opt(str),
  chain_next: opt(str),
  created_at: str,
  updated_at: str,
  expires_at_epoch: int,
};

export const toDeliveryRecord = codec<DeliveryRecord>('webhook_delivery', deliveryShape);

export interface DeliveryMessage {
  event_id: string;
  /** The event's tenant (where its history keeps it); absent in messages queued before it was sent. */
  tenant_id?: string;
  endpoint_id: string;
  redelivery_id?: string;
  /** The delivery's round this attempt belongs to; absent = 0. */
  round?: number;
  /** 1-based. */
  attempt: number;
  /** Not before this instant (ISO); earlier receipts go back to the queue for the rest of the wait. */
  not_before: string;
}

export type SchedulingDeps = StoreDeps & { queue: QueueTransport };

/**
 * A delivery of `event` to `endpoint`, not yet written: pending, or skipped for a disabled
 * endpoint. Automatic ones are indexed by endpoint and event time while skipped or failed, for
 * recovery by window.
 */
export function newDelivery(
  deps: Pick<StoreDeps, 'clock' | 'ids'>,
  event: Pick<EventEnvelope, 'id' | 'type' | 'created_at'>,
  endpoint: Pick<EndpointRecord, 'id' | 'tenant_id' | 'client_id' | 'status'>,
  origin: 'auto' | 'manual',
): DeliveryRecord {
  const now = deps.clock.now();
  const id = deps.ids();
  const redeliveryId = origin === 'manual' ? id : null;
  const skipped = endpoint.status !== 'active';
  return {
    ...webhookKeys.delivery(event.id, endpoint.id, redeliveryId ?? undefined),
    // An automatic delivery keeps its place in the recovery index (gsi1sk) from the start, and is in
    // the index (gsi1pk) only while recoverable: skipped or failed (webhookKeys.deliveriesOf).
    ...(origin === 'auto' ? { gsi1sk: webhookKeys.deliveryOrder(event.created_at, event.id), ...(skipped ? { gsi1pk: webhookKeys.deliveriesOf(endpoint.id) } : {}) } : {}),
    sk: 'DELIVERY',
    entity: 'webhook_delivery',
    id,
    origin,
    tenant_id: endpoint.tenant_id,
    client_id: endpoint.client_id,
    event_id: event.id,
    event_type: event.type,
    endpoint_id: endpoint.id,
    redelivery_id: redeliveryId,
    status: skipped ? 'skipped' : 'pending',
    round: 0,
    max_attempts: origin === 'manual' ? MANUAL_ATTEMPTS : MAX_AUTOMATIC_ATTEMPTS,
    attempts_made: 0,
    scheduled_attempt: 0,
    next_attempt_at: skipped ? null : now.toISOString(),
    last_attempt_at: null,
    last_response_code: null,
    cancel_reason: skipped ? 'endpoint_disabled' : null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at_epoch: epochSeconds(now) + HISTORY_RETENTION_SECONDS,
  };
}

/**
 * The relay's step for one event and endpoint: write the delivery unless it exists, then hand
 * attempt 1 to the queue unless that was done. A replayed stream record finds both done; a relay
 * that crashed between the two finds the delivery and finishes the hand-over. A disabled
 * endpoint's delivery is written skipped and queued nowhere.
 */
export async function ensureAutomaticDelivery(deps: SchedulingDeps, event: EventEnvelope, endpoint: EndpointRecord): Promise<'scheduled' | 'duplicate' | 'skipped'> {
  const fresh = newDelivery(deps, event, endpoint, 'auto');
  let delivery: DeliveryRecord = fresh;
  try {
    await putItem(deps, fresh as unknown as Record<string, unknown>, { condition: 'attribute_not_exists(pk)' });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const found = await getItem(deps, { pk: fresh.pk, sk: fresh.sk });
    // Removed between the two (expired): the stream retries the record.
    if (!found) throw new Error(`delivery ${fresh.pk} vanished between its write and its read`);
    delivery = toDeliveryRecord(found);
  }
  if (delivery === fresh && fresh.status === 'skipped') return 'skipped';
  return scheduleFirstAttempt(deps, delivery);
}

/** Hands attempt 1 of a delivery's current round to the queue, unless already done. */
export async function scheduleFirstAttempt(deps: SchedulingDeps, delivery: DeliveryRecord): Promise<'scheduled' | 'duplicate'> {
  if (delivery.scheduled_attempt >= 1 || delivery.status !== 'pending') return 'duplicate';
  await enqueueAttempt(deps, delivery, 1, deps.clock.now().toISOString());
  return 'scheduled';
}

/** Sends attempt `attempt` (delayed as far as SQS allows) and notes it on the delivery. */
export async function enqueueAttempt(deps: SchedulingDeps, delivery: DeliveryRecord, attempt: number, notBefore: string): Promise<void> {
  const round = delivery.round ?? 0;
  await sendMessage(deps, {
    event_id: delivery.event_id,
    tenant_id: delivery.tenant_id,
    endpoint_id: delivery.endpoint_id,
    ...(delivery.redelivery_id ? { redelivery_id: delivery.redelivery_id } : {}),
    ...(round > 0 ? { round } : {}),
    attempt,
    not_before: notBefore,
  });
  try {
    await updateItem(deps, { pk: delivery.pk, sk: delivery.sk }, {
      expression: 'SET scheduled_attempt = :attempt',
      // A round begun since (a recovery) has its own count: this note belongs to the old one.
      condition: 'scheduled_attempt < :attempt AND (attribute_not_exists(#round) OR #round = :round)',
      names: { '#round': 'round' },
      values: { ':attempt': attempt, ':round': round },
    });
  } catch (error) {
    // Someone noted it first (a concurrent duplicate): the message is one more duplicate the claim absorbs.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

export async function sendMessage(deps: SchedulingDeps, message: DeliveryMessage): Promise<void> {
  const waitMs = Date.parse(message.not_before) - deps.clock.now().getTime();
  const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(waitMs / 1000)));
  await deps.queue.send(DELIVERY_QUEUE, JSON.stringify(message), { delaySeconds });
}

export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Partial<DeliveryMessage>;
    const ok =
      typeof value.event_id === 'string' &&
      (value.tenant_id === undefined || typeof value.tenant_id === 'string') &&
      typeof value.endpoint_id === 'string' &&
      (value.redelivery_id === undefined || typeof value.redelivery_id === 'string') &&
      (value.round === undefined || (Number.isInteger(value.round) && value.round >= 0)) &&
      Number.isInteger(value.attempt) &&
      (value.attempt ?? 0) >= 1 &&
      typeof value.not_before === 'string' &&
      !Number.isNaN(Date.parse(value.not_before));
    return ok ? (value as DeliveryMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** The body bytes of a delivery: the envelope with its fields in the spec's order. */
export function envelopeBody(envelope: EventEnvelope): string {
  const { id, type, tenant_id, client_id, created_at, data } = envelope;
  return JSON.stringify({ id, type, tenant_id, ...(client_id ? { client_id } : {}), created_at, data });
}

/**
 * An owner's delivery attempts, newest first: all (gsi1), or one event's (gsi2, its own
 * partition: an event of another owner has none there). Refuses: invalid_request (cursor).
 */
export async function listAttempts(deps: StoreDeps, owner: Owner, page: { cursor?: string; limit: number; event_id?: string }): Promise<Page<DeliveryAttempt>> {
  const result = await queryPage(
    deps,
    page.event_id === undefined
      ? { index: 'gsi1', partition: webhookKeys.attemptsOf(owner), cursor: page.cursor, limit: page.limit }
      : { index: 'gsi2', partition: webhookKeys.eventAttemptsOf(owner, page.event_id), cursor: page.cursor, limit: page.limit },
  );
  return { data: result.items.map(publicAttempt), next_cursor: result.next_cursor };
}

/** An attempt item as the API shows it; attempts recorded before they kept the request and response have null there. */
const publicAttempt = codec<DeliveryAttempt>('webhook_attempt', {
  id: str,
  delivery_id: str,
  event_id: str,
  event_type: str,
  endpoint_id: str,
  client_id: opt(str),
  attempt: int,
  status: oneOf('succeeded', 'failed'),
  response_code: nullable(int),
  error: nullable(str),
  duration_ms: int,
  manual: orElse(bool, () => false),
  attempted_at: str,
  next_attempt_at: nullable(str),
  request: nullable(stored<NonNullable<DeliveryAttempt['request']>>()),
  response: nullable(stored<NonNullable<DeliveryAttempt['response']>>()),
});
