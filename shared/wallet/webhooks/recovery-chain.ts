import { epochSeconds } from '../../kernel/clock';
import { codec, int, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { POLICIES, retrying } from '../../kernel/retry';
import type { TransactItem } from '../../aws/dynamodb';
import { ConditionsFailed, getItem, transact, updateItem, isConditionalCheckFailed } from '../../aws/store';
import type { StoreDeps } from '../deps';
import { HISTORY_RETENTION_SECONDS, MAX_AUTOMATIC_ATTEMPTS, toDeliveryRecord, type DeliveryRecord } from './deliveries';
import { webhookKeys } from './keys';

/**
 * Recovered events go to their endpoint one at a time, oldest first (docs/webhooks.md "Disabling
 * and recovery"): a recovery arms its deliveries as a chain, each link `awaiting` the one before
 * it, which names it as its `chain_next`. The relay queues only a link that awaits nothing (the
 * oldest, or one whose predecessor had already ended). When a link's delivery ends (delivered, its
 * round given up: 12 attempts spent or a 410, or stopped: endpoint deleted or disabled, event
 * expired) the worker releases the next (`releaseNext`), which the relay then queues. Retries of a
 * failing link hold the chain: order is what a recovery promises, and the endpoint's health (a
 * 410, or 5 days of failures) bounds the wait; stopped links cascade without a POST, skipped ones
 * back into the recovery index.
 *
 * The endpoint's chain item (`RECOVERY_CHAIN`) names the last link armed, so a later recovery of
 * the same endpoint (the next page of a long window, say) extends the chain instead of starting
 * a second one in parallel. Each link is one transaction: the delivery armed, the link from its
 * predecessor (still pending, no successor yet), and the chain item (at the version read).
 */

/** The endpoint's chain item: its last link, and a version every link moves. */
interface ChainRecord {
  tail: string;
  version: number;
}

const toChainRecord = codec<ChainRecord>('webhook_recovery_chain', { tail: str, version: int });

/** The endpoint's recovery chain, if one was begun. */
async function readChain(deps: StoreDeps, chainKey: { pk: string; sk: string }): Promise<ChainRecord | undefined> {
  const item = await getItem(deps, chainKey);
  return item && toChainRecord(item);
}

/** A link's write lost to a concurrent change (the chain moved, or the predecessor ended): made again with what changed. */
class LinkRaced extends Error {
  override readonly name = 'LinkRaced';
}

/**
 * Arms `due` (oldest first, each skipped or failed when read) as the tail of the endpoint's chain.
 * Answers how many were armed (one another recovery armed first is passed over). Refuses:
 * service_unavailable (the chain kept moving under concurrent recoveries).
 */
export async function armChain(deps: StoreDeps, endpointId: string, due: readonly DeliveryRecord[]): Promise<number> {
  const chainKey = webhookKeys.recoveryChain(endpointId);
  let chain = await readChain(deps, chainKey);
  let armed = 0;
  for (const delivery of due) {
    // A predecessor that is this very delivery has ended (it is armable again): nothing to await.
    let waitFor = chain && chain.tail !== delivery.pk ? chain.tail : undefined;
    await retrying(POLICIES.contended, async () => {
      const outcome = await armLink(deps, chainKey, delivery, chain, waitFor);
      if (outcome === 'armed') {
        chain = { tail: delivery.pk, version: (chain?.version ?? 0) + 1 };
        armed += 1;
        return;
      }
      if (outcome === 'taken') return;
      if (outcome === 'chain_moved') {
        chain = await readChain(deps, chainKey);
        waitFor = chain && chain.tail !== delivery.pk ? chain.tail : undefined;
      } else {
        // The predecessor ended before the link was made: nothing left to await.
        waitFor = undefined;
      }
      throw new LinkRaced();
    }, {
      retryable: (error) => error instanceof LinkRaced,
      exhausted: () => new AppError('service_unavailable', 'Webhook recoveries of this endpoint kept racing; retry the request.'),
    });
  }
  return armed;
}

/**
 * One link: the delivery skipped or failed -> pending as a new round (awaiting `waitFor`, if
 * given), `waitFor` still pending with no successor -> succeeded by it, the chain item at the
 * version read -> this delivery at the tail.
 */
async function armLink(
  deps: StoreDeps,
  chainKey: { pk: string; sk: string },
  delivery: DeliveryRecord,
  chain: ChainRecord | undefined,
  waitFor: string | undefined,
): Promise<'armed' | 'taken' | 'chain_moved' | 'predecessor_ended'> {
  const now = deps.clock.now();
  const stamp = now.toISOString();
  const items: TransactItem[] = [
    {
      Update: {
        TableName: deps.table,
        Key: { pk: delivery.pk, sk: delivery.sk },
        UpdateExpression: `SET #status = :pending, #round = if_not_exists(#round, :zero) + :one, attempts_made = :zero, scheduled_attempt = :zero, max_attempts = :max, next_attempt_at = :now, cancel_reason = :none, updated_at = :now${waitFor ? ', awaiting = :awaiting' : ''} REMOVE claim_token, claim_expires_ms, gsi1pk${waitFor ? '' : ', awaiting'}`,
        // A delivery whose successor is not yet released has ended only a moment ago: the worker releases it first.
        ConditionExpression: '#status IN (:skipped, :failed) AND attribute_not_exists(chain_next)',
        ExpressionAttributeNames: { '#status': 'status', '#round': 'round' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':zero': 0,
          ':one': 1,
          ':max': MAX_AUTOMATIC_ATTEMPTS,
          ':now': stamp,
          ':none': null,
          ':skipped': 'skipped',
          ':failed': 'failed',
          ...(waitFor ? { ':awaiting': waitFor } : {}),
        },
      },
    },
    {
      Put: {
        TableName: deps.table,
        Item: { ...chainKey, entity: 'webhook_recovery_chain', tail: delivery.pk, version: (chain?.version ?? 0) + 1, updated_at: stamp, expires_at_epoch: epochSeconds(now) + HISTORY_RETENTION_SECONDS },
        ConditionExpression: chain ? 'version = :seen' : 'attribute_not_exists(pk)',
        ...(chain ? { ExpressionAttributeValues: { ':seen': chain.version } } : {}),
      },
    },
  ];
  if (waitFor) {
    items.push({
      Update: {
        TableName: deps.table,
        Key: { pk: waitFor, sk: 'DELIVERY' },
        UpdateExpression: 'SET chain_next = :next',
        ConditionExpression: '#status = :pending AND attribute_not_exists(chain_next)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':next': delivery.pk, ':pending': 'pending' },
      },
    });
  }
  try {
    await transact(deps, items);
    return 'armed';
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (error.indexes.includes(0)) return 'taken';
    if (error.indexes.includes(1)) return 'chain_moved';
    return 'predecessor_ended';
  }
}

/** Whether a delivery may be a link of a chain: an automatic delivery armed by a recovery. */
export const mayBeChained = (delivery: Pick<DeliveryRecord, 'origin' | 'round'>): boolean => delivery.origin === 'auto' && (delivery.round ?? 0) > 0;

/**
 * After a link's delivery ended: releases its successor, if it has one (the successor no longer
 * awaits it, and it no longer names the successor, in one transaction), so the relay queues the
 * successor. Idempotent: a worker that died before it runs it again when the message comes back.
 */
export async function releaseNext(deps: StoreDeps, delivery: Pick<DeliveryRecord, 'pk' | 'sk'>): Promise<void> {
  // Read after the end was written: a link made before it is seen here (a link needs it pending).
  const found = await getItem(deps, { pk: delivery.pk, sk: delivery.sk });
  const current = found && toDeliveryRecord(found);
  const next = current?.chain_next;
  if (!current || !next || current.status === 'pending') return;
  const unlink: TransactItem = {
    Update: {
      TableName: deps.table,
      Key: { pk: delivery.pk, sk: delivery.sk },
      UpdateExpression: 'REMOVE chain_next',
      ConditionExpression: 'chain_next = :next',
      ExpressionAttributeValues: { ':next': next },
    },
  };
  try {
    await transact(deps, [
      {
        Update: {
          TableName: deps.table,
          Key: { pk: next, sk: 'DELIVERY' },
          UpdateExpression: 'SET updated_at = :now REMOVE awaiting',
          ConditionExpression: 'awaiting = :me',
          ExpressionAttributeValues: { ':me': delivery.pk, ':now': deps.clock.now().toISOString() },
        },
      },
      unlink,
    ]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    // Released already (or expired): only the name is left to clear, if another worker has not.
    if (error.indexes.includes(0) && !error.indexes.includes(1)) await forgetSuccessor(deps, delivery, next);
  }
}

async function forgetSuccessor(deps: StoreDeps, delivery: Pick<DeliveryRecord, 'pk' | 'sk'>, next: string): Promise<void> {
  try {
    await updateItem(deps, { pk: delivery.pk, sk: delivery.sk }, { expression: 'REMOVE chain_next', condition: 'chain_next = :next', values: { ':next': next } });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
