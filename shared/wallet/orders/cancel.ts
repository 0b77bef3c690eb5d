import { dueKeys, forEachDue } from '../../aws/due-keys';
import type { TransactItem } from '../../aws/dynamodb';
import { ConditionsFailed, getItem, transact } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { commitVersioned, StaleRead, withFreshReads } from '../../aws/fresh-reads';
import type { Actor, StoreDeps, WalletDeps } from '../deps';
import { defineOperation } from '../saga/registry';
import { runOperation } from '../saga/engine';
import { ORDER_SHARDS, orderKeys } from './keys';
import { orderItem, orderRecord, readOrder, toOrder, toOrderRecord, type Order, type OrderRecord } from './records';
import { stockStep } from './stock';
import type { OwnerScope } from '../principals';
import { faultPoint } from '../saga/faults';
import { METRIC, recordMetric } from '../../kernel/metrics';

/**
 * Ending an open order without a sale (docs/orders.md): the shopper or the client cancels it
 * (`order.canceled`), or it ages out (`order.expired`, the worker). Either way its reserved units
 * are released (release movements) in ONE transaction with the order's new status, conditioned
 * on the order still being open: a pay that claimed it first, or a twin of the worker, wins, and
 * the order ends exactly once.
 */

/**
 * The writes that end an open order, from fresh reads (its held units released); index 0 is the
 * order, conditioned on `open`. `endedBy`: the cancel operation, for its resume to recognize.
 */
async function endWrites(deps: StoreDeps, actor: Actor, order: OrderRecord, status: 'canceled' | 'expired', endedBy?: string): Promise<{ items: TransactItem[]; view: Order }> {
  const ended: OrderRecord = { ...order, status, claim: null, ...(endedBy ? { ended_by: endedBy } : {}), updated_at: deps.clock.now().toISOString(), version: order.version + 1 };
  const release = await stockStep(deps, actor, ended, 'release');
  const view = toOrder(ended);
  return {
    view,
    items: [
      {
        Put: {
          TableName: deps.table,
          Item: orderItem(ended),
          ConditionExpression: '#status = :open',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':open': 'open' },
        },
      },
      ...release.items,
      outboxItem(deps, { type: status === 'canceled' ? 'order.canceled' : 'order.expired', tenantId: order.tenant_id, clientId: order.client_id, data: { order: view } }).item,
    ],
  };
}

const notOpen = (order: Pick<OrderRecord, 'status'>) =>
  new AppError('invalid_transition', order.status === 'paying' ? 'The order is being paid.' : `A ${order.status} order cannot be canceled.`);

export const ORDER_CANCEL = defineOperation('order.cancel', async ({ runtime, operationId, principal, request }) => ({
  // No ledger here: the cancel itself is the step that may refuse (not open), conditioned on the
  // order being open; the commit only answers (a commit must refuse nothing).
  post: () =>
    withFreshReads(async () => {
      const { order_id: orderId } = request as { order_id: string };
      const order = await readOrder(runtime, orderId);
      if (!order) throw new AppError('not_found', `No order ${orderId}.`);
      // A resume after this operation canceled it: its answer.
      if (order.status === 'canceled' && order.ended_by === operationId) return toOrder(order);
      if (order.status !== 'open') throw notOpen(order);
      const { items, view } = await endWrites(runtime, principal, order, 'canceled', operationId);
      // Any failed condition (the order left `open`, a stock count moved): read again.
      await commitVersioned(runtime, items, []);
      return view;
    }),
  commit: async (view) => ({ items: [], status: 200, body: view }),
}));

/**
 * Cancels an open order once per Idempotency-Key: its stock is released. Refuses: not_found (not
 * the caller's), invalid_transition (paid, being paid, canceled or expired), idempotency_key_reuse.
 */
export async function cancelOrder(runtime: WalletDeps, principal: Principal, scope: OwnerScope, orderId: string, options: { idempotencyKey: string; requestId: string }): Promise<Outcome> {
  await orderRecord(runtime, scope, orderId);
  return runOperation(runtime, { operation: ORDER_CANCEL, tenantId: scope.tenantId, idempotencyKey: options.idempotencyKey, request: { order_id: orderId }, principal, requestId: options.requestId });
}

const WORKER: Actor = { kind: 'system', id: 'orders-expiry' };

/** An order's expiry as the fault harness names it. */
export const ORDER_EXPIRE = 'order.expire';

/**
 * The expiry worker: every open order past expires_at is expired and its stock released, exactly
 * once even when two runs overlap (the order's write is conditioned on `open`; the loser skips).
 * An order being paid is left to its payment. Returns how many it expired; an item it cannot read
 * is passed and fails the run after the others (`forEachDue`).
 */
export async function expireOrders(runtime: WalletDeps): Promise<number> {
  const now = runtime.clock.now().toISOString();
  let expired = 0;
  try {
    await forEachDue(dueKeys(runtime.client, runtime.table, { index: 'gsi3', shards: ORDER_SHARDS, partitionOf: orderKeys.openShard, before: now }), async (due) => {
      if (await expireOrder(runtime, due, now)) expired += 1;
    });
  } finally {
    // Also for a run that failed after expiring some.
    if (expired > 0) recordMetric(METRIC.orderHoldsExpired, 'Count', expired);
  }
  return expired;
}

/** Expires one due order if it is still open and past its hold; whether it did. */
function expireOrder(runtime: WalletDeps, due: { pk: string; sk: string }, now: string): Promise<boolean> {
  return withFreshReads(async () => {
    const item = await getItem(runtime, { pk: due.pk, sk: due.sk });
    const order = item ? toOrderRecord(item) : undefined;
    if (!order || order.status !== 'open' || order.expires_at > now) return false;
    const { items } = await endWrites(runtime, WORKER, order, 'expired');
    await faultPoint(ORDER_EXPIRE, 'beforeCommit');
    try {
      await transact(runtime, items);
      return true;
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      // The order left `open` first (paid, canceled, or a twin expired it): nothing to do.
      if (error.indexes.includes(0)) return false;
      throw new StaleRead();
    }
  });
}
