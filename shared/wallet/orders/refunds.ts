import type { TransactItem } from '../../aws/dynamodb';
import { getItem } from '../../aws/store';
import { AppError } from '../../kernel/errors';
import type { WalletDeps } from '../deps';
import { paymentKeys } from '../payments/keys';
import { toPaymentRecord, type PaymentRecord } from '../payments/records';
import { refundOperation, refundService, type RefundRestock } from '../payments/refunds';
import { defineOperation } from '../saga/registry';
import { orderKeys } from './keys';
import { readOrder } from './records';
import { stockStep } from './stock';

/**
 * Refunds as the wallet runs them: payments' refund operation composed with what a refund does to
 * an order (`restock`: its paid units go back to stock in the refund's own transaction). Payments
 * sit below orders and import none of them; this module, in the layer above both, hands the
 * restock in and so defines `refund.create` (functions/payments/create-refund.ts and the
 * sweeper's loader import it from here).
 */

/** `restock` needs an order's payment whose units were not returned yet. Refuses: invalid_request. */
async function assertRestockable(runtime: WalletDeps, payment: PaymentRecord): Promise<void> {
  const invalid = (message: string) => new AppError('invalid_request', `restock: ${message}.`, { errors: [{ field: 'restock', message }] });
  if (payment.order_id === undefined) throw invalid('this payment is not an order\'s');
  const order = await readOrder(runtime, payment.order_id);
  if (order?.restocked === true) throw invalid('the order\'s units were already returned to stock');
}

/**
 * The writes that return a paid order's units to stock (restock movements) and mark it restocked,
 * once per order: a second refund that raced this one finds it marked and restocks nothing.
 */
async function restockWrites(runtime: WalletDeps, paymentId: string, refundId: string): Promise<TransactItem[]> {
  const item = await getItem(runtime, paymentKeys.payment(paymentId));
  const payment = item ? toPaymentRecord(item) : undefined;
  if (payment?.order_id === undefined) return [];
  const order = await readOrder(runtime, payment.order_id);
  if (!order || order.restocked === true) return [];
  const actor = { kind: 'refund', id: refundId };
  const { items } = await stockStep(runtime, actor, order, 'restock');
  return [
    ...items,
    {
      Update: {
        TableName: runtime.table,
        Key: orderKeys.order(order.id),
        UpdateExpression: 'SET restocked = :true',
        ConditionExpression: 'attribute_not_exists(restocked)',
        ExpressionAttributeValues: { ':true': true },
      },
    },
  ];
}

const orderRestock: RefundRestock = { check: assertRestockable, writes: restockWrites };

export const REFUND_CREATE = defineOperation('refund.create', refundOperation(orderRestock));

/** Refunds a captured payment (payments/refunds.ts says what it refuses), restocking an order's units when asked. */
export const createRefund = refundService(REFUND_CREATE, orderRestock);
