import { epochSeconds } from '../../kernel/clock';
import { METRIC, recordMetric } from '../../kernel/metrics';
import { envelopeOf, eventKeys, type EventEnvelope } from '../../events/outbox';
import { readEvent } from './events';
import type { QueueTransport } from '../../aws/transport';
import type { StoreDeps } from '../deps';
import { ConditionsFailed, getItems, isConditionalCheckFailed, transact, updateItem } from '../../aws/store';
import {
  ATTEMPT_CLAIM_MS,
  HISTORY_RETENTION_SECONDS,
  RETRY_DELAYS_SECONDS,
  enqueueAttempt,
  envelopeBody,
  sendMessage,
  toDeliveryRecord,
  type DeliveryMessage,
  type DeliveryRecord,
  type DeliveryStatus,
} from './deliveries';
import { ownerOf, toEndpointRecord, type EndpointRecord } from './endpoints';
import { recordAttemptHealth, toHealthRecord, type HealthRecord } from './health';
import { postWebhook, type PostOutcome, type WebhookHttp } from './http';
import { webhookKeys } from './keys';
import { mayBeChained, releaseNext } from './recovery-chain';
import type { DeliveryAttempt } from './schemas';
import { deliveryHeaders, forgetExpiredSecret, signingSecrets } from './signing';

/**
 * One delivery attempt (spec part 6 "Retries"). Before it the worker re-reads the delivery, the
 * endpoint and its failure streak (a deleted endpoint stops its retries, a disabled one skips
 * them), claims the attempt on the delivery record (a duplicate message, which SQS may send, finds
 * it claimed or done), POSTs the signed envelope, and records the attempt and the delivery's new
 * state in one transaction. Then the endpoint's counters and streak (./health.ts), and the next
 * attempt after the published backoff, or later when the receiver asked for it:
 *  - 410 Gone: no retry, and the endpoint is disabled at once;
 *  - 429 or 503 with Retry-After (seconds or an HTTP date): the next attempt waits at least that
 *    long, at most MAX_RETRY_AFTER_SECONDS, within the same 12 attempts;
 *  - anything else that is not 2xx (3xx included: redirects are never followed): the schedule.
 * A recovered delivery that ends (delivered, given up, or stopped) releases the next recovered
 * event of its endpoint (./recovery-chain.ts).
 */

export interface DeliveryDeps extends StoreDeps {
  queue: QueueTransport;
  http: WebhookHttp;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

/** A receiver's Retry-After is honoured up to the schedule's longest step (4 h): 12 attempts stay within two days. */
export const MAX_RETRY_AFTER_SECONDS = Math.max(...RETRY_DELAYS_SECONDS);
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export type AttemptResult = 'deferred' | 'delivered' | 'retry_scheduled' | 'gave_up' | 'skipped' | 'canceled';

/** Seconds a Retry-After value asks for: delta-seconds or an HTTP date (RFC 9110 10.2.3); null when unreadable. */
export function retryAfterSeconds(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Seconds until attempt `next`: the schedule's, or the receiver's Retry-After when longer (capped). */
export function delayBefore(next: number, outcome: Pick<PostOutcome, 'responseCode' | 'retryAfter'>, now: Date): number {
  const scheduled = RETRY_DELAYS_SECONDS[next - 1]!;
  if (outcome.responseCode === null || !RETRY_AFTER_STATUSES.has(outcome.responseCode)) return scheduled;
  const asked = retryAfterSeconds(outcome.retryAfter, now);
  return asked === null ? scheduled : Math.max(scheduled, Math.min(asked, MAX_RETRY_AFTER_SECONDS));
}

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
  const { delivery, endpoint, event, health } = await readAttemptState(deps, key, message);
  // A message of an earlier round (before a recovery armed the delivery again) is stale.
  if (!delivery || delivery.status !== 'pending' || (delivery.round ?? 0) !== (message.round ?? 0)) {
    // A recovered delivery that ended, whose worker may have died before releasing the next: release it.
    if (delivery && delivery.status !== 'pending' && (delivery.round ?? 0) === (message.round ?? 0) && mayBeChained(delivery)) await releaseNext(deps, delivery);
    return 'skipped';
  }
  // Still waiting for the recovered event before it: its release queues it.
  if (delivery.awaiting) return 'skipped';
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
  if (!endpoint || endpoint.status === 'deleted' || !endpoint.secret) return stop(deps, delivery, 'canceled', 'endpoint_deleted');
  // Kept for a recovery, which arms it again as a new round.
  if (endpoint.status === 'disabled') return stop(deps, delivery, 'skipped', 'endpoint_disabled');
  if (!event) return stop(deps, delivery, 'canceled', 'event_expired');

  const claim = deps.ids();
  if (!(await claimAttempt(deps, delivery, claim, now.getTime()))) return 'skipped';

  const body = envelopeBody(event);
  // Signed now, on every attempt: receivers enforce their tolerance against this.
  const signedAt = deps.clock.now();
  const outcome = await postWebhook(deps.http, {
    url: endpoint.url,
    body,
    livemode: endpoint.livemode,
    headers: deliveryHeaders(signingSecrets(endpoint, signedAt), event.id, body, epochSeconds(signedAt)),
  });
  await forgetExpiredSecret(deps, endpoint, signedAt);

  const gone = outcome.responseCode === 410;
  const next = !outcome.ok && !gone && message.attempt < delivery.max_attempts ? message.attempt + 1 : null;
  const nextAt = next === null ? null : new Date(now.getTime() + delayBefore(next, outcome, deps.clock.now()) * 1000).toISOString();
  const status: DeliveryStatus = outcome.ok ? 'succeeded' : next === null ? 'failed' : 'pending';
  const attempt: DeliveryAttempt = {
    id: deps.ids(),
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
    // Signatures and the receiver's bounded answer; the body is the event's envelope, kept with the event.
    request: { headers: outcome.requestHeaders },
    response: outcome.response,
  };
  if (!(await recordAttempt(deps, delivery, attempt, { status, claim, now }))) return 'skipped';
  recordAttemptMetrics(outcome, gone, deps.clock.now().getTime() - Date.parse(event.created_at));
  await recordAttemptHealth(deps, endpoint, health, { ok: outcome.ok, gone, attempt: message.attempt, durationMs: outcome.durationMs, at: now });
  // After the health update, so a 410 has disabled the endpoint before the next recovered event is tried.
  if (status !== 'pending' && mayBeChained(delivery)) await releaseNext(deps, delivery);
  if (outcome.ok) return 'delivered';
  if (next === null || nextAt === null) return 'gave_up';
  await enqueueAttempt(deps, { ...delivery, attempts_made: message.attempt }, next, nextAt);
  return 'retry_scheduled';
}

/** The attempt and the delivery's new state, under the claim. False when the claim ran out and another worker's record stands. */
async function recordAttempt(deps: StoreDeps, delivery: DeliveryRecord, attempt: DeliveryAttempt, state: { status: DeliveryStatus; claim: string; now: Date }): Promise<boolean> {
  // An automatic delivery that gave up enters the recovery index (webhookKeys.deliveriesOf).
  const recoverable = state.status === 'failed' && delivery.origin === 'auto';
  try {
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: { pk: delivery.pk, sk: delivery.sk },
          UpdateExpression: `SET attempts_made = :attempt, #status = :status, last_attempt_at = :at, last_response_code = :code, next_attempt_at = :next, updated_at = :updated${recoverable ? ', gsi1pk = :recoverable' : ''} REMOVE claim_token, claim_expires_ms`,
          ConditionExpression: 'claim_token = :claim AND attempts_made = :previous',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':attempt': attempt.attempt,
            ':previous': attempt.attempt - 1,
            ':status': state.status,
            ':at': attempt.attempted_at,
            ':code': attempt.response_code,
            ':next': attempt.next_attempt_at,
            ':updated': deps.clock.now().toISOString(),
            ':claim': state.claim,
            ...(recoverable ? { ':recoverable': webhookKeys.deliveriesOf(delivery.endpoint_id) } : {}),
          },
        },
      },
      {
        Put: {
          TableName: deps.table,
          Item: {
            ...webhookKeys.attempt(delivery.pk, attempt.id),
            entity: 'webhook_attempt',
            gsi1pk: webhookKeys.attemptsOf(ownerOf(delivery)),
            gsi1sk: attempt.id,
            gsi2pk: webhookKeys.eventAttemptsOf(ownerOf(delivery), delivery.event_id),
            gsi2sk: attempt.id,
            ...attempt,
            expires_at_epoch: epochSeconds(state.now) + HISTORY_RETENTION_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
    return true;
  } catch (error) {
    if (error instanceof ConditionsFailed) return false;
    throw error;
  }
}

async function readAttemptState(
  deps: StoreDeps,
  key: { pk: string; sk: string },
  message: DeliveryMessage,
): Promise<{ delivery?: DeliveryRecord; endpoint?: EndpointRecord; event?: EventEnvelope; health?: HealthRecord }> {
  // One read for all four; a message queued before messages named the tenant takes it from its delivery.
  const [delivery, endpoint, health, event] = await getItems(deps, [
    key,
    webhookKeys.endpoint(message.endpoint_id),
    webhookKeys.health(message.endpoint_id),
    ...(message.tenant_id === undefined ? [] : [eventKeys.event(message.tenant_id, message.event_id)]),
  ]);
  const record = delivery && toDeliveryRecord(delivery);
  const tenantId = message.tenant_id ?? record?.tenant_id;
  const stored = event && envelopeOf(event);
  return {
    delivery: record,
    endpoint: endpoint && toEndpointRecord(endpoint),
    event: stored ?? (tenantId === undefined ? undefined : await readEvent(deps, tenantId, message.event_id)),
    health: health && toHealthRecord(health),
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

/** Ends a pending delivery without an attempt: canceled (endpoint deleted, event expired) or skipped (endpoint disabled). */
async function stop<S extends 'canceled' | 'skipped'>(deps: StoreDeps, delivery: DeliveryRecord, status: S, reason: string): Promise<S> {
  try {
    // A skipped automatic delivery enters the recovery index (webhookKeys.deliveriesOf).
    const recoverable = status === 'skipped' && delivery.origin === 'auto';
    await updateItem(deps, { pk: delivery.pk, sk: delivery.sk }, {
      expression: `SET #status = :stopped, cancel_reason = :reason, next_attempt_at = :none, updated_at = :now${recoverable ? ', gsi1pk = :recoverable' : ''}`,
      condition: '#status = :pending AND attempts_made = :made',
      names: { '#status': 'status' },
      values: {
        ':stopped': status,
        ':reason': reason,
        ':none': null,
        ':pending': 'pending',
        ':made': delivery.attempts_made,
        ':now': deps.clock.now().toISOString(),
        ...(recoverable ? { ':recoverable': webhookKeys.deliveriesOf(delivery.endpoint_id) } : {}),
      },
    });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
  if (mayBeChained(delivery)) await releaseNext(deps, delivery);
  return status;
}

/**
 * `WebhookAttempts` per recorded attempt; a failed one also `WebhookFailures`, in all and by reason (`gone`:
 * 410, `http_4xx` / `http_5xx`, `no_answer`: timeout, refused connection or address); a success
 * `WebhookDeliveryLag`, the event's creation to its delivery.
 */
function recordAttemptMetrics(outcome: PostOutcome, gone: boolean, sinceEventMs: number): void {
  recordMetric(METRIC.webhookAttempts, 'Count', 1);
  if (outcome.ok) {
    recordMetric(METRIC.webhookDeliveryLag, 'Milliseconds', Math.max(0, sinceEventMs));
    return;
  }
  const reason = gone ? 'gone' : outcome.responseCode ? `http_${Math.floor(outcome.responseCode / 100)}xx` : 'no_answer';
  // Once without the reason (the failure-rate alarm divides it by the attempts), once by reason.
  recordMetric(METRIC.webhookFailures, 'Count', 1);
  recordMetric(METRIC.webhookFailures, 'Count', 1, { Reason: reason });
}

