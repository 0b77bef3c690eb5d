import { epochSeconds } from '../../kernel/clock';
import { codec, int, opt, str } from '../../kernel/codec';
import { outboxItem } from '../../events/outbox';
import type { TransactItem } from '../../aws/dynamodb';
import { ConditionsFailed, getItem, isConditionalCheckFailed, queryAll, transact, updateItem } from '../../aws/store';
import type { Actor, StoreDeps } from '../deps';
import { endpointAudit, liveEndpointOf, publicEndpoint, type DisableReason, type EndpointRecord } from './endpoints';
import { webhookKeys, type Owner } from './keys';
import { DISABLED_EVENT } from './matching';
import type { EndpointStats } from './schemas';

/**
 * An endpoint's health, written after each recorded attempt with plain updates (atomic counters,
 * no transaction, so parallel attempts to one endpoint never conflict on it):
 *  - hourly counters (`STATS#<hour>`): attempts, successes, failures and a latency histogram of
 *    25 % wide buckets, which the stats view sums over the last 24 h (25 items at most);
 *  - the failure streak (`HEALTH`): since when every attempt has failed, and how many
 *    deliveries failed in it. A streak of 5 days and 10 deliveries disables the endpoint; so does
 *    a 410 Gone at once. Disabling is one transaction: the endpoint (still active, and the
 *    streak still the one seen), the audit record and a `webhook_endpoint.disabled` event for the
 *    tenant's other endpoints.
 * A worker that dies between the attempt's record and these updates loses that attempt's count:
 * the counters are an operations view, and a lost failure only delays a disable.
 */

export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;
export const DISABLE_MIN_DELIVERIES = 10;
/** Hour items are read for 25 h; a day more covers clock skew between workers. */
const STATS_RETENTION_SECONDS = 2 * 86_400;
const LATENCY_RATIO = 1.25;
const MAX_LATENCY_BUCKET = 60;
const HOUR_MS = 3_600_000;
const SYSTEM_ACTOR: Actor = { kind: 'system', id: 'webhook-deliveries' };

export interface HealthRecord {
  failing_since?: string;
  failing_deliveries?: number;
}

/** The endpoint's failure streak; no item (or no streak in it) is a healthy endpoint. */
export const toHealthRecord = codec<HealthRecord>('webhook_endpoint_health', { failing_since: opt(str), failing_deliveries: opt(int) });

/** The histogram bucket of a duration: bucket b holds (1.25^(b-1), 1.25^b] ms. */
export const latencyBucket = (ms: number): number => (ms <= 1 ? 0 : Math.min(MAX_LATENCY_BUCKET, Math.ceil(Math.log(ms) / Math.log(LATENCY_RATIO))));
const bucketUpperMs = (bucket: number) => Math.round(LATENCY_RATIO ** bucket);
const hourOf = (date: Date) => date.toISOString().slice(0, 13);

/** After a recorded attempt: its counters and the endpoint's streak, which may disable the endpoint. */
export async function recordAttemptHealth(
  deps: StoreDeps,
  endpoint: EndpointRecord,
  health: HealthRecord | undefined,
  attempt: { ok: boolean; gone: boolean; attempt: number; durationMs: number; at: Date },
): Promise<void> {
  await updateItem(deps, webhookKeys.statsHour(endpoint.id, hourOf(attempt.at)), {
    expression: 'SET entity = :entity, expires_at_epoch = if_not_exists(expires_at_epoch, :expires) ADD attempts :one, #outcome :one, #bucket :one',
    names: { '#outcome': attempt.ok ? 'successes' : 'failures', '#bucket': `latency_${latencyBucket(attempt.durationMs)}` },
    values: { ':entity': 'webhook_endpoint_stats', ':expires': epochSeconds(attempt.at) + STATS_RETENTION_SECONDS, ':one': 1 },
  });
  if (attempt.ok) {
    if (health?.failing_since) await endStreak(deps, endpoint.id);
    return;
  }
  const updated = await updateItem(deps, webhookKeys.health(endpoint.id), {
    expression: 'SET entity = :entity, failing_since = if_not_exists(failing_since, :now) ADD failing_deliveries :count',
    // A delivery counts once, at its first attempt (or when it opens the streak).
    values: { ':entity': 'webhook_endpoint_health', ':now': attempt.at.toISOString(), ':count': attempt.attempt === 1 || !health?.failing_since ? 1 : 0 },
    returnValues: 'ALL_NEW',
  });
  const streak = toHealthRecord(updated ?? {});
  if (attempt.gone) {
    await disableEndpoint(deps, endpoint, 'gone');
    return;
  }
  const failingMs = attempt.at.getTime() - Date.parse(streak.failing_since!);
  if (failingMs >= DISABLE_AFTER_FAILING_MS && (streak.failing_deliveries ?? 0) >= DISABLE_MIN_DELIVERIES) {
    await disableEndpoint(deps, endpoint, 'failing', streak.failing_since);
  }
}

async function endStreak(deps: StoreDeps, endpointId: string): Promise<void> {
  try {
    await updateItem(deps, webhookKeys.health(endpointId), { expression: 'REMOVE failing_since, failing_deliveries', condition: 'attribute_exists(failing_since)' });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * Disables an active endpoint, audited, with a `webhook_endpoint.disabled` event. For `failing`,
 * only while the streak is the one seen (a success since ended it). False when nothing changed.
 */
export async function disableEndpoint(deps: StoreDeps, endpoint: EndpointRecord, reason: DisableReason, failingSince?: string): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  const after: EndpointRecord = { ...endpoint, status: 'disabled', disabled_at: now, disabled_reason: reason, updated_at: now };
  const items: TransactItem[] = [
    {
      Update: {
        TableName: deps.table,
        Key: webhookKeys.endpoint(endpoint.id),
        UpdateExpression: 'SET #status = :disabled, disabled_at = :now, disabled_reason = :reason, updated_at = :now',
        ConditionExpression: '#status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':disabled': 'disabled', ':active': 'active', ':now': now, ':reason': reason },
      },
    },
    endpointAudit(deps, { actor: SYSTEM_ACTOR, action: 'disable', before: endpoint, after, requestId: `webhook-delivery-${deps.ids()}` }),
    outboxItem(deps, { type: DISABLED_EVENT, tenantId: endpoint.tenant_id, data: { webhook_endpoint: publicEndpoint(after), reason } }).item,
  ];
  if (failingSince) {
    items.push({
      ConditionCheck: { TableName: deps.table, Key: webhookKeys.health(endpoint.id), ConditionExpression: 'failing_since = :since', ExpressionAttributeValues: { ':since': failingSince } },
    });
  }
  try {
    await transact(deps, items);
    return true;
  } catch (error) {
    // Disabled, deleted or recovered meanwhile: the other change stands.
    if (error instanceof ConditionsFailed) return false;
    throw error;
  }
}

/** The transaction item that forgets an endpoint's streak (a recovery starts it afresh). */
export const resetHealthItem = (deps: Pick<StoreDeps, 'table'>, endpointId: string): TransactItem => ({
  Delete: { TableName: deps.table, Key: webhookKeys.health(endpointId) },
});

/**
 * Attempts, successes, failures and latency percentiles of a live endpoint over the current hour
 * and the 24 before it, from its hourly counters (at most 25 items). Refuses: not_found.
 */
export async function endpointStats(deps: StoreDeps, owner: Owner, endpointId: string): Promise<EndpointStats> {
  await liveEndpointOf(deps, owner, endpointId);
  const now = deps.clock.now();
  const from = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - 24 * HOUR_MS);
  const totals = { attempts: 0, successes: 0, failures: 0 };
  const buckets = new Map<number, number>();
  const hours = queryAll(deps, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': webhookKeys.health(endpointId).pk, ':from': webhookKeys.statsHour(endpointId, hourOf(from)).sk, ':to': webhookKeys.statsHour(endpointId, hourOf(now)).sk },
  });
  for await (const hour of hours) {
    for (const [name, value] of Object.entries(hour)) {
      if (name in totals) totals[name as keyof typeof totals] += int(value, 'webhook_endpoint_stats', name);
      const bucket = /^latency_(\d+)$/.exec(name);
      if (bucket) buckets.set(Number(bucket[1]), (buckets.get(Number(bucket[1])) ?? 0) + int(value, 'webhook_endpoint_stats', name));
    }
  }
  const item = await getItem(deps, webhookKeys.health(endpointId));
  const health = item && toHealthRecord(item);
  return {
    endpoint_id: endpointId,
    from: from.toISOString(),
    to: now.toISOString(),
    ...totals,
    latency_ms: { p50: percentile(buckets, 0.5), p99: percentile(buckets, 0.99) },
    failing_since: health?.failing_since ?? null,
  };
}

/** The upper bound of the bucket holding the p-th duration; null without any. */
function percentile(buckets: Map<number, number>, p: number): number | null {
  const total = [...buckets.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (const bucket of [...buckets.keys()].sort((a, b) => a - b)) {
    seen += buckets.get(bucket)!;
    if (seen >= rank) return bucketUpperMs(bucket);
  }
  return null;
}
