import { epochSeconds } from '../../kernel/clock';
import { signPayload } from '../../events/signature';
import { EVENT_RETENTION_DAYS, eventKeys, type EventEnvelope } from '../../events/outbox';
import { MAX_QUEUE_DELAY_SECONDS, type QueueTransport } from '../../aws/transport';
import type { StoreDeps } from '../deps';
import { ConditionsFailed, getItem, getItems, isConditionalCheckFailed, putItem, queryPage, transact, updateItem, type Page } from '../../aws/store';
import { ownerOf, type EndpointRecord } from './endpoints';
import { postWebhook, type WebhookHttp } from './http';
import { webhookKeys, type Owner } from './keys';
import type { DeliveryAttempt } from './schemas';

/**
 * Deliveries and their attempts (spec part 6 "Retries").
 *
 * A delivery is one event for one endpoint: the automatic one (written by the relay under a
 * condition, so a replayed stream record cannot make a second) or a manual redelivery. Attempts
 * travel through the `webhookDeliveries` queue as messages `{event_id, endpoint_id, redelivery_id?,
 * attempt, not_before}`. Before each attempt the worker re-reads the delivery and the endpoint (a
 * deleted endpoint stops its retries), claims the attempt on the delivery record (a duplicate
 * message, which SQS may send, finds it claimed or done), POSTs the signed envelope, and records the
 * attempt and the delivery's new state in one transaction. A failed attempt schedules the next one
 * after the published backoff; delays past SQS's 900 s limit hop through the queue with
 * `not_before` (docs/webhooks.md explains why not EventBridge Scheduler).
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

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

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
  max_attempts: number;
  /** Attempts recorded so far. */
  attempts_made: number;
  /** The highest attempt handed to the queue. */
  scheduled_attempt: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_code: number | null;
  cancel_reason: string | null;
  claim_token?: string;
  claim_expires_ms?: number;
  created_at: string;
  updated_at: string;
  expires_at_epoch: number;
}

export interface DeliveryMessage {
  event_id: string;
  endpoint_id: string;
  redelivery_id?: string;
  /** 1-based. */
  attempt: number;
  /** Not before this instant (ISO); earlier receipts go back to the queue for the rest of the wait. */
  not_before: string;
}

export interface DeliveryDeps extends StoreDeps {
  queue: QueueTransport;
  http: WebhookHttp;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

type SchedulingDeps = StoreDeps & { queue: QueueTransport };

/** A delivery of `event` to `endpoint`, not yet written. */
export function newDelivery(
  deps: Pick<StoreDeps, 'clock' | 'ids'>,
  event: Pick<EventEnvelope, 'id' | 'type'>,
  endpoint: Pick<EndpointRecord, 'id' | 'tenant_id' | 'client_id'>,
  origin: 'auto' | 'manual',
): DeliveryRecord {
  const now = deps.clock.now();
  const id = deps.ids();
  const redeliveryId = origin === 'manual' ? id : null;
  return {
    ...webhookKeys.delivery(event.id, endpoint.id, redeliveryId ?? undefined),
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
    status: 'pending',
    max_attempts: origin === 'manual' ? MANUAL_ATTEMPTS : MAX_AUTOMATIC_ATTEMPTS,
    attempts_made: 0,
    scheduled_attempt: 0,
    next_attempt_at: now.toISOString(),
    last_attempt_at: null,
    last_response_code: null,
    cancel_reason: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at_epoch: epochSeconds(now) + HISTORY_RETENTION_SECONDS,
  };
}

/**
 * The relay's step for one event and endpoint: write the delivery unless it exists, then hand
 * attempt 1 to the queue unless that was done. A replayed stream record finds both done; a relay
 * that crashed between the two finds the delivery and finishes the hand-over.
 */
export async function ensureAutomaticDelivery(deps: SchedulingDeps, event: EventEnvelope, endpoint: EndpointRecord): Promise<'scheduled' | 'duplicate'> {
  const fresh = newDelivery(deps, event, endpoint, 'auto');
  let delivery: DeliveryRecord = fresh;
  try {
    await putItem(deps, fresh as unknown as Record<string, unknown>, { condition: 'attribute_not_exists(pk)' });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    delivery = (await getItem(deps, { pk: fresh.pk, sk: fresh.sk })) as unknown as DeliveryRecord;
  }
  return scheduleFirstAttempt(deps, delivery);
}

/** Hands attempt 1 of a delivery to the queue, unless already done. */
export async function scheduleFirstAttempt(deps: SchedulingDeps, delivery: DeliveryRecord): Promise<'scheduled' | 'duplicate'> {
  if (delivery.scheduled_attempt >= 1 || delivery.status !== 'pending') return 'duplicate';
  await enqueueAttempt(deps, delivery, 1, deps.clock.now().toISOString());
  return 'scheduled';
}

/** Sends attempt `attempt` (delayed as far as SQS allows) and notes it on the delivery. */
async function enqueueAttempt(deps: SchedulingDeps, delivery: DeliveryRecord, attempt: number, notBefore: string): Promise<void> {
  await sendMessage(deps, {
    event_id: delivery.event_id,
    endpoint_id: delivery.endpoint_id,
    ...(delivery.redelivery_id ? { redelivery_id: delivery.redelivery_id } : {}),
    attempt,
    not_before: notBefore,
  });
  try {
    await updateItem(deps, { pk: delivery.pk, sk: delivery.sk }, { expression: 'SET scheduled_attempt = :attempt', condition: 'scheduled_attempt < :attempt', values: { ':attempt': attempt } });
  } catch (error) {
    // Someone noted it first (a concurrent duplicate): the message is one more duplicate the claim absorbs.
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

async function sendMessage(deps: SchedulingDeps, message: DeliveryMessage): Promise<void> {
  const waitMs = Date.parse(message.not_before) - deps.clock.now().getTime();
  const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(waitMs / 1000)));
  await deps.queue.send(DELIVERY_QUEUE, JSON.stringify(message), { delaySeconds });
}

export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Partial<DeliveryMessage>;
    const ok =
      typeof value.event_id === 'string' &&
      typeof value.endpoint_id === 'string' &&
      (value.redelivery_id === undefined || typeof value.redelivery_id === 'string') &&
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

export type AttemptResult = 'deferred' | 'delivered' | 'retry_scheduled' | 'gave_up' | 'skipped' | 'canceled';

/**
 * One queue message: wait longer, or make the attempt it names. Throws only on infrastructure
 * failures (the queue then redelivers the message); a receiver's failure is a recorded attempt.
 */
export async function processDeliveryMessage(deps: DeliveryDeps, message: DeliveryMessage): Promise<AttemptResult> {
  const now = deps.clock.now();
  if (Date.parse(message.not_before) > now.getTime()) {
    await sendMessage(deps, message);
    return 'deferred';
  }
  const key = webhookKeys.delivery(message.event_id, message.endpoint_id, message.redelivery_id);
  const { delivery, endpoint, event } = await readAttemptState(deps, key, message);
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  if (delivery.attempts_made >= message.attempt) {
    // A duplicate message, or the one whose worker recorded the attempt but crashed before
    // scheduling the next: finish that hand-over.
    const next = message.attempt + 1;
    if (delivery.attempts_made === message.attempt && delivery.scheduled_attempt < next && next <= delivery.max_attempts && delivery.next_attempt_at) {
      await enqueueAttempt(deps, delivery, next, delivery.next_attempt_at);
    }
    return 'skipped';
  }
  if (delivery.attempts_made !== message.attempt - 1) {
    deps.log?.('webhook delivery message out of order', { delivery_id: delivery.id, attempt: message.attempt, attempts_made: delivery.attempts_made });
    return 'skipped';
  }
  if (!endpoint || endpoint.status !== 'active' || !endpoint.secret) return cancel(deps, delivery, 'endpoint_deleted');
  if (!event) return cancel(deps, delivery, 'event_expired');

  const claim = deps.ids();
  if (!(await claimAttempt(deps, delivery, claim, now.getTime()))) return 'skipped';

  const body = envelopeBody(event);
  const outcome = await postWebhook(deps.http, {
    url: endpoint.url,
    body,
    livemode: endpoint.livemode,
    headers: {
      'content-type': 'application/json',
      // Signed now, on every attempt: receivers enforce their tolerance against this.
      'x-wallet-signature': signPayload(endpoint.secret, body, epochSeconds(deps.clock.now())),
      'x-wallet-event-id': event.id,
    },
  });

  const next = !outcome.ok && message.attempt < delivery.max_attempts ? message.attempt + 1 : null;
  const nextAt = next === null ? null : new Date(now.getTime() + RETRY_DELAYS_SECONDS[next - 1]! * 1000).toISOString();
  const status: DeliveryStatus = outcome.ok ? 'succeeded' : next === null ? 'failed' : 'pending';
  const attemptId = deps.ids();
  const attempt: DeliveryAttempt = {
    id: attemptId,
    delivery_id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    endpoint_id: delivery.endpoint_id,
    ...(delivery.client_id ? { client_id: delivery.client_id } : {}),
    attempt: message.attempt,
    status: outcome.ok ? 'succeeded' : 'failed',
    response_code: outcome.responseCode,
    error: outcome.error,
    duration_ms: outcome.durationMs,
    manual: delivery.origin === 'manual',
    attempted_at: now.toISOString(),
    next_attempt_at: nextAt,
  };
  try {
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: { pk: delivery.pk, sk: delivery.sk },
          UpdateExpression:
            'SET attempts_made = :attempt, #status = :status, last_attempt_at = :at, last_response_code = :code, next_attempt_at = :next, updated_at = :updated REMOVE claim_token, claim_expires_ms',
          ConditionExpression: 'claim_token = :claim AND attempts_made = :previous',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':attempt': message.attempt,
            ':previous': message.attempt - 1,
            ':status': status,
            ':at': attempt.attempted_at,
            ':code': outcome.responseCode,
            ':next': nextAt,
            ':updated': deps.clock.now().toISOString(),
            ':claim': claim,
          },
        },
      },
      {
        Put: {
          TableName: deps.table,
          Item: {
            ...webhookKeys.attempt(delivery.pk, attemptId),
            entity: 'webhook_attempt',
            gsi1pk: webhookKeys.attemptsOf(ownerOf(delivery)),
            gsi1sk: attemptId,
            ...attempt,
            expires_at_epoch: epochSeconds(now) + HISTORY_RETENTION_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  } catch (error) {
    // The claim ran out and another worker took the attempt over: its record stands.
    if (error instanceof ConditionsFailed) return 'skipped';
    throw error;
  }
  if (outcome.ok) return 'delivered';
  if (next === null || nextAt === null) return 'gave_up';
  await enqueueAttempt(deps, { ...delivery, attempts_made: message.attempt }, next, nextAt);
  return 'retry_scheduled';
}

async function readAttemptState(
  deps: StoreDeps,
  key: { pk: string; sk: string },
  message: DeliveryMessage,
): Promise<{ delivery?: DeliveryRecord; endpoint?: EndpointRecord; event?: EventEnvelope }> {
  const [delivery, endpoint, event] = await getItems(deps, [key, webhookKeys.endpoint(message.endpoint_id), eventKeys.event(message.event_id)]);
  return {
    delivery: delivery as DeliveryRecord | undefined,
    endpoint: endpoint as EndpointRecord | undefined,
    event: (event as { envelope?: EventEnvelope } | undefined)?.envelope,
  };
}

async function claimAttempt(deps: StoreDeps, delivery: DeliveryRecord, claim: string, nowMs: number): Promise<boolean> {
  try {
    await updateItem(deps, { pk: delivery.pk, sk: delivery.sk }, {
      expression: 'SET claim_token = :claim, claim_expires_ms = :until',
      condition: '#status = :pending AND attempts_made = :made AND (attribute_not_exists(claim_expires_ms) OR claim_expires_ms < :now)',
      names: { '#status': 'status' },
      values: { ':claim': claim, ':until': nowMs + ATTEMPT_CLAIM_MS, ':pending': 'pending', ':made': delivery.attempts_made, ':now': nowMs },
    });
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

async function cancel(deps: StoreDeps, delivery: DeliveryRecord, reason: string): Promise<'canceled'> {
  try {
    await updateItem(deps, { pk: delivery.pk, sk: delivery.sk }, {
      expression: 'SET #status = :canceled, cancel_reason = :reason, next_attempt_at = :none, updated_at = :now',
      condition: '#status = :pending',
      names: { '#status': 'status' },
      values: { ':canceled': 'canceled', ':reason': reason, ':none': null, ':pending': 'pending', ':now': deps.clock.now().toISOString() },
    });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  return 'canceled';
}

/** An owner's delivery attempts, newest first. Refuses: invalid_request (cursor). */
export async function listAttempts(deps: StoreDeps, owner: Owner, page: { cursor?: string; limit: number }): Promise<Page<DeliveryAttempt>> {
  const result = await queryPage(deps, { index: 'gsi1', partition: webhookKeys.attemptsOf(owner), cursor: page.cursor, limit: page.limit });
  return { data: result.items.map(publicAttempt), next_cursor: result.next_cursor };
}

const publicAttempt = (item: Record<string, unknown>): DeliveryAttempt => ({
  id: item.id as string,
  delivery_id: item.delivery_id as string,
  event_id: item.event_id as string,
  event_type: item.event_type as string,
  endpoint_id: item.endpoint_id as string,
  ...(item.client_id ? { client_id: item.client_id as string } : {}),
  attempt: item.attempt as number,
  status: item.status as DeliveryAttempt['status'],
  response_code: (item.response_code as number | null) ?? null,
  error: (item.error as string | null) ?? null,
  duration_ms: item.duration_ms as number,
  manual: item.manual === true,
  attempted_at: item.attempted_at as string,
  next_attempt_at: (item.next_attempt_at as string | null) ?? null,
});
