import { dueKeys, forEachDue } from '../../aws/due-keys';
import { ConditionsFailed, getItem, transact } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { WalletDeps } from '../deps';
import { ledgerKeyOf } from '../saga/registry';
import { faultPoint } from '../saga/faults';
import { HOLD_SHARDS, paymentKeys } from './keys';
import { pendingOf, statusUpdate, toPayment, toPaymentRecord } from './records';

/** A hold's expiry as the fault harness names it. */
export const PAYMENT_EXPIRE = 'payment.expire';

/**
 * The expiry worker: voids every authorization whose hold has passed (status `expired`, one
 * payment.expired: the status change is conditioned on `authorized`). Returns how many expired; an
 * item it cannot read is passed and fails the run after the others (`forEachDue`).
 */
export async function expireHolds(runtime: WalletDeps): Promise<number> {
  const now = runtime.clock.now().toISOString();
  let expired = 0;
  await forEachDue(dueKeys(runtime.client, runtime.table, { index: 'gsi3', shards: HOLD_SHARDS, partitionOf: paymentKeys.holdShard, before: now }), async (hold) => {
    const item = await getItem(runtime, { pk: hold.pk, sk: hold.sk });
    if (!item || item.status !== 'authorized') return;
    const record = toPaymentRecord(item);
    const pending = pendingOf(record);
    try {
      await runtime.ledger().voidPending(record.ledger_id, pending, ledgerKeyOf(record.tenant_id, record.id, 'expire'));
    } catch {
      // Already resolved (ledger `conflict`): a capture or void in flight owns it and its saga
      // commits. Anything else is transient: the next run tries again.
      return;
    }
    await faultPoint(PAYMENT_EXPIRE, 'afterLedger');
    const at = runtime.clock.now().toISOString();
    const payment = toPayment({ ...record, status: 'expired', updated_at: at });
    const event = outboxItem(runtime, { type: 'payment.expired', tenantId: record.tenant_id, data: { payment } });
    try {
      await transact(runtime, [{ Update: statusUpdate(runtime.table, payment.id, 'expired', at) }, event.item]);
      expired += 1;
    } catch (error) {
      // A capture or void committed first: the payment is no longer authorized.
      if (!(error instanceof ConditionsFailed)) throw error;
    }
  });
  return expired;
}
