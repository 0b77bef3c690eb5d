import { getItem, isConditionalCheckFailed, queryPage, updateItem, type Page, type CreatedRange } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { codec, int, nullable, oneOf, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Transaction } from '../../ledger-client/contract';
import type { StoreDeps, WalletDeps } from '../deps';
import type { OperationDefinition } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { getUserRecord } from '../tenancy/users';
import { paymentKeys } from './keys';
import { legOf } from '../money/legs';
import { paymentRecord, toPaymentRecord, transitionRefused, type PaymentRecord } from './records';
import type { TransactItem } from '../../aws/dynamodb';
import { clawbackItems, planClawback, postClawback, type Clawback, type ClawbackPlan } from '../rewards/clawback';

/**
 * Refunds of a captured payment, several up to the captured amount: each claims its amount on the
 * payment before the ledger moves money, so two concurrent refunds cannot together exceed it.
 * A refund may return a paid order's units to stock (`restock`), in its own commit; payments know
 * no order, so that effect is handed in (RefundRestock) by the layer that composes the two, which
 * also defines the operation: shared/wallet/orders/refunds.ts.
 */

/** What a refund with `restock` does to the paid order: given by the layer above payments and orders. */
export interface RefundRestock {
  /** Before the refund starts (nothing written yet). Refuses: invalid_request. */
  check(runtime: WalletDeps, payment: PaymentRecord): Promise<void>;
  /**
   * The writes, in the refund's commit, that return the order's units to stock, once per order:
   * from fresh reads, conditioned on what they read (the commit is rebuilt when a count moved).
   */
  writes(runtime: WalletDeps, paymentId: string, refundId: string): Promise<TransactItem[]>;
}

export interface Refund {
  id: string;
  payment_id: string;
  user_id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  status: 'completed';
  reason: string | null;
  ledger_transaction_id: string;
  created_at: string;
}

/** The refund item's codec (../../kernel/codec.ts): a refund is stored as the API shows it (and its tenant, checked before). */
const toRefund = codec<Refund>('refund', {
  id: str,
  payment_id: str,
  user_id: str,
  merchant_id: str,
  amount: int,
  currency: str,
  status: oneOf('completed'),
  reason: nullable(str),
  ledger_transaction_id: str,
  created_at: str,
});


interface RefundRequest {
  payment_id: string;
  amount: number | null;
  reason: string | null;
  /** Return the paid order's units to stock (an order's payment only; once per order). */
  restock?: boolean;
}

interface RefundQuote {
  ledger_id: string;
  currency: string;
  user_id: string;
  merchant_id: string;
  payer_account_id: string;
  settlement_account_id: string;
  captured_amount: number;
  amount: number;
  /** Set when the refund was refused before any claim: the key remembers the refusal. */
  refusal?: { code: 'invalid_transition' | 'invalid_request'; detail: string };
  /**
   * The rewards it takes back (null: none), planned when the refund was asked; every try posts and
   * records exactly this. Absent in quotes pinned before clawbacks were planned: planned at the resume.
   */
  clawback?: ClawbackPlan | null;
}

const refundTooLarge = (remaining: number) =>
  new AppError('invalid_request', `amount exceeds what is left to refund (${remaining}).`, { errors: [{ field: 'amount', message: 'exceeds the refundable amount' }] });

/**
 * The refund operation, given what a restock writes: defined as `refund.create` by the module that
 * composes it (shared/wallet/orders/refunds.ts), the one the sweeper loads for that name.
 */
export const refundOperation = (restock: RefundRestock): OperationDefinition => async ({ runtime, tenantId, operationId, request, pinned, startedAt }) => {
  const input = request as RefundRequest;
  const quote = pinned as RefundQuote;
  const paymentKey = paymentKeys.payment(input.payment_id);
  /** Claims the amount on the payment before the ledger moves money (idempotent per operation). */
  const claim = async () => {
    try {
      await updateItem(runtime, paymentKey, {
        expression: 'SET refund_claims.#op = :amount ADD refund_reserved :amount',
        condition: '#status = :captured AND attribute_not_exists(refund_claims.#op) AND refund_reserved <= :limit',
        names: { '#op': operationId, '#status': 'status' },
        values: { ':amount': quote.amount, ':captured': 'captured', ':limit': quote.captured_amount - quote.amount },
      });
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const item = await getItem(runtime, paymentKey);
      const payment = item ? toPaymentRecord(item) : undefined;
      if (payment?.refund_claims[operationId] !== undefined) return; // a resume: already claimed
      throw refundTooLarge(Math.max(0, quote.captured_amount - (payment?.refund_reserved ?? 0)));
    }
  };
  const release = () =>
    updateItem(runtime, paymentKey, {
      expression: 'REMOVE refund_claims.#op ADD refund_reserved :minus',
      condition: 'attribute_exists(refund_claims.#op)',
      names: { '#op': operationId },
      values: { ':minus': -quote.amount },
    });
  const leg = legOf(quote.currency);
  return {
    // A restock's writes are conditioned on the stock counts it read.
    freshCommit: input.restock === true,
    post: async (ledgerKey) => {
      if (quote.refusal) throw new AppError(quote.refusal.code, quote.refusal.detail);
      await claim();
      let transaction: Transaction;
      try {
        transaction = await runtime.ledger().post(
          quote.ledger_id,
          { type: 'refund', reference_id: operationId, metadata: { refund_id: operationId, payment_id: input.payment_id }, legs: [leg(quote.settlement_account_id, 'debit', quote.amount), leg(quote.payer_account_id, 'credit', quote.amount)] },
          ledgerKey,
        );
      } catch (error) {
        // A refusal (the merchant's settlement floor: insufficient_funds) gives the claim back.
        if (error instanceof LedgerRefusal && error.code !== 'idempotency_in_flight' && error.code !== 'idempotency_key_reuse') await release().catch(() => undefined);
        throw error;
      }
      const plan = quote.clawback !== undefined ? quote.clawback : await planClawback(runtime, tenantId, await paymentRecord(runtime, tenantId, input.payment_id), quote.amount);
      const clawback = await postClawback(runtime, plan, { paymentId: input.payment_id, ledgerKey });
      return { transaction, clawback };
    },
    commit: async (result) => {
      const { transaction: posted, clawback } = result as { transaction: Transaction; clawback: Clawback | null };
      const refund: Refund = {
        id: operationId,
        payment_id: input.payment_id,
        user_id: quote.user_id,
        merchant_id: quote.merchant_id,
        amount: quote.amount,
        currency: quote.currency,
        status: 'completed',
        reason: input.reason,
        ledger_transaction_id: (posted as Transaction).id,
        created_at: startedAt,
      };
      const event = outboxItem(runtime, { type: 'refund.completed', tenantId, data: { refund } });
      const restocked = input.restock ? await restock.writes(runtime, input.payment_id, operationId) : [];
      return {
        items: [
          ...restocked,
          {
            Put: {
              TableName: runtime.table,
              Item: { ...paymentKeys.refund(refund.id), ...paymentKeys.refundIndexes(tenantId, refund.id, refund.user_id), entity: 'refund', tenant_id: tenantId, ...refund },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: runtime.table,
              Key: paymentKey,
              UpdateExpression: 'SET updated_at = :now ADD refunded_amount :amount',
              ConditionExpression: 'attribute_exists(refund_claims.#op)',
              ExpressionAttributeNames: { '#op': operationId },
              ExpressionAttributeValues: { ':amount': quote.amount, ':now': runtime.clock.now().toISOString() },
            },
          },
          event.item,
          ...clawbackItems(runtime, tenantId, input.payment_id, quote.user_id, clawback),
        ],
        status: 201,
        body: refund,
      };
    },
  };
};

/**
 * Refunds a captured payment, whole (amount omitted: what is left) or in part, once per
 * Idempotency-Key. The merchant returns the refunded amount in full; fees and commission stay with
 * the platform. Refuses: not_found, invalid_transition (not captured, or nothing left),
 * invalid_request (more than is left, also when a concurrent refund took it), insufficient_funds
 * (the merchant's settlement balance), idempotency_key_reuse, idempotency_in_flight.
 */
export type CreateRefund = (
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  input: { payment_id: string; amount?: number; reason?: string; restock?: boolean },
  options: { idempotencyKey: string; requestId: string; faults?: SagaFaults },
) => Promise<Outcome>;

/**
 * The service that starts refunds under `operation` (the name the composing module defined
 * refundOperation(restock) under), a restock checked by `restock.check` before anything is written.
 */
export const refundService =
  (operation: string, restock: RefundRestock): CreateRefund =>
  (runtime, principal, tenantId, input, options) =>
    startRefund(runtime, principal, tenantId, input, { ...options, operation, restock });

async function startRefund(
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  input: { payment_id: string; amount?: number; reason?: string; restock?: boolean },
  options: { idempotencyKey: string; requestId: string; faults?: SagaFaults; operation: string; restock: RefundRestock },
): Promise<Outcome> {
  const item = await paymentRecord(runtime, tenantId, input.payment_id, principal.userId);
  const request: RefundRequest = { payment_id: input.payment_id, amount: input.amount ?? null, reason: input.reason ?? null, ...(input.restock ? { restock: true } : {}) };
  if (input.restock) await options.restock.check(runtime, item);
  const captured = item.captured_amount;
  const remaining = captured - item.refund_reserved;
  const amount = input.amount ?? remaining;
  const quote: RefundQuote = {
    ledger_id: item.ledger_id,
    currency: item.currency,
    user_id: item.user_id,
    merchant_id: item.merchant_id,
    payer_account_id: item.payer_account_id,
    settlement_account_id: item.settlement_account_id,
    captured_amount: captured,
    amount,
  };
  const refusal = item.status !== 'captured' || remaining <= 0 ? transitionRefused(item, 'refunded') : amount > remaining ? refundTooLarge(remaining) : undefined;
  if (refusal) quote.refusal = { code: refusal.code as 'invalid_transition' | 'invalid_request', detail: refusal.message };
  // What the refund takes back of the payment's rewards is decided now, once (docs/rewards.md).
  quote.clawback = refusal ? null : await planClawback(runtime, tenantId, item, amount);
  return runOperation(runtime, { operation: options.operation, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned: quote }, options.faults);
}

export async function listRefunds(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number; user_id?: string; payment_id?: string } & CreatedRange, options: { selfOnly?: string } = {}): Promise<Page<Refund>> {
  const userId = query.user_id ?? options.selfOnly;
  if (options.selfOnly !== undefined && userId !== options.selfOnly) throw new AppError('user_not_found', `No user ${userId}.`);
  if (userId !== undefined) await getUserRecord(deps, tenantId, userId);
  const page = await queryPage(deps, {
    index: userId === undefined ? 'gsi1' : 'gsi2',
    partition: userId === undefined ? paymentKeys.tenantRefunds(tenantId) : paymentKeys.userRefunds(userId),
    cursor: query.cursor, created: query,
    limit: query.limit,
    ...(query.payment_id === undefined ? {} : { filter: { expression: 'payment_id = :payment', values: { ':payment': query.payment_id } }, scanBudget: 1_000 }),
  });
  return { data: page.items.map(toRefund), next_cursor: page.next_cursor };
}

/** One refund of the tenant (a user token: only its own). Refuses: not_found (also another tenant's or user's). */
export async function getRefund(deps: StoreDeps, tenantId: string, refundId: string, options: { selfOnly?: string } = {}): Promise<Refund> {
  const item = await getItem(deps, paymentKeys.refund(refundId));
  if (!item || item.tenant_id !== tenantId || (options.selfOnly !== undefined && item.user_id !== options.selfOnly)) throw new AppError('not_found', `No refund ${refundId}.`);
  return toRefund(item);
}
