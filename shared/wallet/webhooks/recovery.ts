import { codec, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { ConditionsFailed, queryAll, transact } from '../../aws/store';
import type { Actor, StoreDeps } from '../deps';
import { deliveryShape, HISTORY_RETENTION_SECONDS, type DeliveryRecord } from './deliveries';
import { endpointAudit, liveEndpointOf, publicEndpoint, type EndpointRecord } from './endpoints';
import { resetHealthItem } from './health';
import { webhookKeys, type Owner } from './keys';
import { armChain } from './recovery-chain';
import type { RecoveryResult } from './schemas';

/**
 * Recovery by window (docs/webhooks.md "Disabling and recovery"): re-enables a disabled endpoint
 * and sends it again every event of the window it did not get, under the original event ids:
 * its automatic deliveries that were skipped (the endpoint was disabled) or failed (12 attempts
 * spent, or a 410), each armed again as a new round of up to 12 attempts. Arming is a
 * conditional update of the delivery (skipped or failed -> pending), so each event is queued once
 * however often, or however concurrently, the window is recovered. The armed deliveries go to the
 * endpoint one at a time, oldest first: they are armed as a chain, each waiting for the one before
 * it to end (./recovery-chain.ts), and the relay queues each from the stream when its turn comes.
 * Deliveries that succeeded, or are still being retried, are left alone.
 *
 * Deliveries are read from the endpoint's own index by event time, oldest first: the work is
 * bounded by the endpoint's deliveries, never the tenant's events. One request arms at most
 * RECOVERY_MAX_QUEUED and reads at most RECOVERY_READ_BUDGET deliveries; when it stops early it
 * answers `next_since` to continue from.
 */

export const RECOVERY_MAX_QUEUED = 500;
export const RECOVERY_READ_BUDGET = 5_000;
const RECOVERABLE: readonly DeliveryRecord['status'][] = ['skipped', 'failed'];

const invalid = (field: string, message: string) => new AppError('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });

/**
 * Re-enables the endpoint (if disabled) and queues its undelivered events created in [since,
 * until), one at a time, oldest first; audited. Refuses: invalid_request (since more than 30
 * days back, or not before until), not_found (unknown, another owner's, deleted),
 * service_unavailable (concurrent recoveries of the endpoint kept racing).
 */
export async function recoverEndpoint(
  deps: StoreDeps,
  owner: Owner,
  endpointId: string,
  input: { since: string; until?: string },
  context: { actor: Actor; requestId: string },
): Promise<RecoveryResult> {
  const now = deps.clock.now();
  const since = new Date(input.since);
  const until = input.until === undefined || Date.parse(input.until) > now.getTime() ? now : new Date(input.until);
  if (now.getTime() - since.getTime() > HISTORY_RETENTION_SECONDS * 1000) throw invalid('body.since', 'at most 30 days back: older events are no longer kept');
  if (since.getTime() >= until.getTime()) throw invalid('body.since', 'must be before until (and before now)');
  const endpoint = await reenable(deps, await liveEndpointOf(deps, owner, endpointId), { since: since.toISOString(), until: until.toISOString() }, context);

  const due: DeliveryRecord[] = [];
  let read = 0;
  let nextSince: string | null = null;
  const deliveries = queryAll(deps, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :since AND :until',
    // Keys are `<created_at>#<event id>`: `until` alone sorts before every key of that instant (exclusive bound).
    ExpressionAttributeValues: { ':pk': webhookKeys.deliveriesOf(endpointId), ':since': since.toISOString(), ':until': until.toISOString() },
    ScanIndexForward: true,
  });
  for await (const item of deliveries) {
    const delivery = toIndexedDelivery(item);
    if (due.length >= RECOVERY_MAX_QUEUED || read >= RECOVERY_READ_BUDGET) {
      nextSince = delivery.gsi1sk.split('#', 1)[0]!;
      break;
    }
    read += 1;
    // Deliveries written before the index held only recoverable ones may be in it in any state.
    if (RECOVERABLE.includes(delivery.status)) due.push(delivery);
  }

  const queued = await armChain(deps, endpointId, due);
  return { endpoint: publicEndpoint(endpoint), since: since.toISOString(), until: until.toISOString(), queued, next_since: nextSince };
}

/** A delivery read from the recovery index, with its place there. */
const toIndexedDelivery = codec<DeliveryRecord & { gsi1sk: string }>('webhook_delivery', { ...deliveryShape, gsi1sk: str });

/** Active again, its failure streak forgotten, and the recovery audited: one transaction. */
async function reenable(deps: StoreDeps, endpoint: EndpointRecord, window: { since: string; until: string }, context: { actor: Actor; requestId: string }): Promise<EndpointRecord> {
  const now = deps.clock.now().toISOString();
  const after: EndpointRecord = { ...endpoint, status: 'active', updated_at: now };
  delete after.disabled_at;
  delete after.disabled_reason;
  try {
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: webhookKeys.endpoint(endpoint.id),
          UpdateExpression: 'SET #status = :active, updated_at = :now REMOVE disabled_at, disabled_reason',
          ConditionExpression: '#status IN (:active, :disabled)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': 'active', ':disabled': 'disabled', ':now': now },
        },
      },
      resetHealthItem(deps, endpoint.id),
      endpointAudit(deps, { actor: context.actor, action: 'recover', before: endpoint, after, requestId: context.requestId, details: { recovery: window } }),
    ]);
  } catch (error) {
    // Deleted meanwhile.
    if (error instanceof ConditionsFailed) throw new AppError('not_found', `No webhook endpoint ${endpoint.id}.`);
    throw error;
  }
  return after;
}
