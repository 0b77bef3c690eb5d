import { isConditionalCheckFailed, updateItem } from '../../aws/store';
import type { TransactItem } from '../../aws/dynamodb';
import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { Transaction } from '../../ledger-client/contract';
import { LedgerRefusal } from '../../ledger-client/client';
import { variantView } from '../catalog/records';
import type { WalletDeps } from '../deps';
import { splitCharge } from '../payments/fees';
import { captureLegs } from '../money/legs';
import { newPaymentItem, toPayment, toPaymentRecord } from '../payments/records';
import { grantItems, planRewards, postRewards, type Grants, type RewardPlan } from '../rewards/earn';
import { defineOperation } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { computeFee } from '../tenancy/fees';
import { orderKeys } from './keys';
import { orderItem, orderRecord, readOrder, toOrder, type OrderRecord } from './records';
import { stockStep } from './stock';
import type { OwnerScope } from '../principals';

/**
 * Paying an order (docs/orders.md): one payment, captured at once, from the shopper's cash to the
 * client's merchant, with the fee rule and commission pinned at creation. A saga like every money
 * path, in three steps:
 *   1. claim the order (`open` → `paying`, conditioned on it being open and unexpired when the
 *      request came): cancel and the expiry worker act only on an open order, so exactly one wins;
 *   2. post the payment to the ledger under the operation's key, then the rewards it earns, as
 *      planned before the saga started and pinned with the key; a refusal (insufficient_funds)
 *      gives the claim back and the order stays open, its stock held;
 *   3. commit the payment, the order `paid`, the sale of the units it holds (their movements),
 *      the rewards' records, payment.captured, order.paid and inventory.low_stock in one
 *      transaction, rebuilt from fresh reads when a stock count moved meanwhile. It refuses
 *      nothing: the money has moved (a variant gone meanwhile sells nothing).
 * A crash after 1 or 2 leaves the key started: the retry or the sweeper resumes from the claim,
 * with the same reward plan whatever the rules say by then.
 */

interface PayRequest {
  order_id: string;
}

/** Pinned when the pay was asked: what it earns. Absent on pays pinned before plans were: planned at the resume. */
interface PayPin {
  rewards?: RewardPlan | null;
}

/** What an order's payment earns on: its client's rules, per line. */
const earnInput = (order: OrderRecord, at: string) => ({
  tenantId: order.tenant_id,
  ledgerId: order.quote.ledger_id,
  currency: order.currency,
  userId: order.user_id,
  payerAccountId: order.quote.payer_account_id,
  merchantId: order.quote.merchant_id,
  clientId: order.client_id,
  lines: order.lines.map((line) => ({ offeringId: line.offering_id, amount: line.amount })),
  at,
});

/** The money of an order: the pinned commission, the fee by the pinned rule. */
export const orderAmounts = (order: Pick<OrderRecord, 'amount' | 'commission' | 'commission_mode' | 'quote'>) =>
  splitCharge(order.amount, computeFee(order.quote.fee_rule, order.amount), order.commission, order.commission_mode);

const refused = (order: Pick<OrderRecord, 'id' | 'status'>, why?: string) =>
  new AppError('invalid_transition', why ?? (order.status === 'paying' ? 'The order is being paid by another request.' : `A ${order.status} order cannot be paid.`));

export const ORDER_PAY = defineOperation('order.pay', async ({ runtime, operationId, principal, request, startedAt, pinned }) => {
  const { order_id: orderId } = request as PayRequest;
  const key = orderKeys.order(orderId);
  let order = await readOrder(runtime, orderId);
  if (!order) throw new AppError('not_found', `No order ${orderId}.`);
  if (order.claim !== operationId) {
    if (order.status !== 'open') throw refused(order);
    if (startedAt >= order.expires_at) throw refused(order, `The order expired at ${order.expires_at}.`);
    try {
      await updateItem(runtime, key, {
        expression: 'SET #status = :paying, claim = :claim',
        condition: '#status = :open AND expires_at > :started',
        names: { '#status': 'status' },
        values: { ':paying': 'paying', ':claim': operationId, ':open': 'open', ':started': startedAt },
      });
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const now = await readOrder(runtime, orderId);
      if (!now) throw new AppError('not_found', `No order ${orderId}.`);
      throw refused(now, now.status === 'open' ? `The order expired at ${now.expires_at}.` : undefined);
    }
    order = { ...order, status: 'paying', claim: operationId };
  }
  const claimed = order;
  const amounts = orderAmounts(claimed);
  if (amounts.merchant_credit < 0) throw new AppError('invalid_request', 'The fee and commission exceed the order.');
  const giveBack = () =>
    updateItem(runtime, key, {
      expression: 'SET #status = :open, claim = :none',
      condition: 'claim = :claim',
      names: { '#status': 'status' },
      values: { ':open': 'open', ':none': null, ':claim': operationId },
    }).catch((error: unknown) => {
      if (!isConditionalCheckFailed(error)) throw error;
    });
  return {
    freshCommit: true,
    post: async (ledgerKey) => {
      let transaction: Transaction;
      try {
        transaction = await runtime.ledger().post(
          claimed.quote.ledger_id,
          { type: 'payment', reference_id: operationId, metadata: { payment_id: operationId, order_id: claimed.id }, legs: captureLegs({ currency: claimed.currency, ...claimed.quote }, amounts) },
          ledgerKey,
        );
      } catch (error) {
        // The ledger said no: the order is open again, its stock still held, for another try.
        if (error instanceof LedgerRefusal && error.code !== 'idempotency_in_flight' && error.code !== 'idempotency_key_reuse') await giveBack();
        throw error;
      }
      const pin = (pinned ?? {}) as PayPin;
      const plan = pin.rewards !== undefined ? pin.rewards : await planRewards(runtime, earnInput(claimed, startedAt));
      const grants = await postRewards(runtime, plan, { paymentId: operationId, ledgerKey });
      return { transaction, grants };
    },
    commit: async (result) => {
      const { transaction: posted, grants } = result as { transaction: Transaction; grants: Grants };
      const now = runtime.clock.now().toISOString();
      // The units the order holds are sold, whatever track_inventory says now; what the sale took
      // off on_hand is recorded, for a restock to return.
      const sale = await stockStep(runtime, principal, claimed, 'sale');
      const paid: OrderRecord = { ...claimed, status: 'paid', payment_id: operationId, fee: amounts.fee, claim: null, sold: sale.units, updated_at: now, version: claimed.version + 1 };
      const payment = newPaymentItem({
        id: operationId,
        tenantId: claimed.tenant_id,
        userId: claimed.user_id,
        merchantId: claimed.quote.merchant_id,
        amount: claimed.amount,
        currency: claimed.currency,
        capture: true,
        amounts,
        commissionMode: claimed.commission_mode,
        description: `order ${claimed.id}`,
        metadata: { order_id: claimed.id },
        holdExpiresAt: null,
        createdAt: now,
        internal: {
          order_id: claimed.id,
          ledger_id: claimed.quote.ledger_id,
          payer_account_id: claimed.quote.payer_account_id,
          settlement_account_id: claimed.quote.settlement_account_id,
          revenue_account_id: claimed.quote.revenue_account_id,
          rules: { payment: claimed.quote.fee_rule },
          ledger_transaction_id: (posted as Transaction).id,
        },
      });
      const view = toOrder(paid);
      const items: TransactItem[] = [
        {
          Put: {
            TableName: runtime.table,
            Item: orderItem(paid),
            ConditionExpression: 'claim = :claim',
            ExpressionAttributeValues: { ':claim': operationId },
          },
        },
        ...sale.items,
        { Put: { TableName: runtime.table, Item: payment, ConditionExpression: 'attribute_not_exists(pk)' } },
        outboxItem(runtime, { type: 'payment.captured', tenantId: paid.tenant_id, data: { payment: toPayment(toPaymentRecord(payment)) } }).item,
        outboxItem(runtime, { type: 'order.paid', tenantId: paid.tenant_id, clientId: paid.client_id, data: { order: view } }).item,
        ...grantItems(runtime, paid.tenant_id, paid.user_id, operationId, grants, paid.amount),
        ...sale.lowStock.map(
          (variant) => outboxItem(runtime, { type: 'inventory.low_stock', tenantId: paid.tenant_id, clientId: paid.client_id, data: { variant: variantView(variant) } }).item,
        ),
      ];
      return { items, status: 200, body: view };
    },
  };
});

/**
 * Pays an open order once per Idempotency-Key. Refuses: not_found (not the caller's),
 * invalid_transition (not open, or expired when asked, even before the expiry worker ran),
 * insufficient_funds and the ledger's other refusals (the order stays open),
 * idempotency_key_reuse, idempotency_in_flight.
 */
export async function payOrder(
  runtime: WalletDeps,
  principal: Principal,
  scope: OwnerScope,
  orderId: string,
  options: { idempotencyKey: string; requestId: string; faults?: SagaFaults },
): Promise<Outcome> {
  const order = await orderRecord(runtime, scope, orderId);
  // What the payment earns is decided now, from the rules of now, and pinned (docs/rewards.md);
  // a retry of a started pay gets its first try's plan back, not this one.
  const payable = order.status === 'open' || order.status === 'paying';
  const pinned: PayPin = { rewards: payable ? await planRewards(runtime, earnInput(order, runtime.clock.now().toISOString())) : null };
  return runOperation(runtime, { operation: ORDER_PAY, tenantId: scope.tenantId, idempotencyKey: options.idempotencyKey, request: { order_id: orderId }, principal, requestId: options.requestId, pinned }, options.faults);
}
