import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { outboxItem } from '../../events/outbox';
import { StoredItemInvalid } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Transaction } from '../../ledger-client/contract';
import type { WalletDeps } from '../deps';
import { grantItems, planRewards, postRewards, type Grants, type RewardPlan } from '../rewards/earn';
import { defineOperation } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { captureAmounts, type CaptureAmounts } from './fees';
import { paymentKeys } from './keys';
import { captureLegs } from '../money/legs';
import { paymentRecord, pendingOf, statusUpdate, toPayment, transitionRefused, type PaymentRecord } from './records';

/**
 * Capture and void of an authorization. The ledger resolves a pending exactly once (posted, voided
 * or expired), so a capture and a void (or the expiry worker) racing on one authorization cannot
 * both succeed; the wallet's status change is also conditioned on `authorized`.
 */

interface ResolveRequest {
  payment_id: string;
  amount: number | null;
}

/** Pinned when a capture or void starts: whether the hold had already run out then, and what a capture earns. */
interface ResolvePin {
  hold_expired: boolean;
  /** The capture's reward plan (null: none). Absent on captures pinned before plans were: planned at the resume. */
  rewards?: RewardPlan | null;
}

/** The ledger resolves a pending once: `conflict` there means a capture, void or expiry won. */
function resolutionRefused(error: unknown, action: string): unknown {
  if (error instanceof LedgerRefusal && error.code === 'conflict') return new AppError('invalid_transition', `The authorization was already resolved; the payment cannot be ${action}.`);
  return error;
}

/** What a capture of `amount` of an authorization earns on: the payment's merchant's client's rules. */
const earnInput = (tenantId: string, record: PaymentRecord, amount: number, at: string) => ({
  tenantId,
  ledgerId: record.ledger_id,
  currency: record.currency,
  userId: record.user_id,
  payerAccountId: record.payer_account_id,
  merchantId: record.merchant_id,
  lines: [{ offeringId: null, amount }],
  at,
});

export const PAYMENT_CAPTURE = defineOperation('payment.capture', async ({ runtime, tenantId, request, pinned, startedAt }) => {
  const input = request as ResolveRequest;
  const pin = pinned as ResolvePin;
  const item = await paymentRecord(runtime, tenantId, input.payment_id);
  const amount = input.amount ?? item.amount;
  return {
    post: async (ledgerKey) => {
      if (item.status !== 'authorized' || pin.hold_expired) throw pin.hold_expired && item.status === 'authorized' ? new AppError('invalid_transition', 'The authorization has expired.') : transitionRefused(item, 'captured');
      // Priced only once it is known to be an authorization: a payment captured at once (an
      // order's) keeps no commission rule, and asking to capture it is a refused transition.
      const { payment, commission } = item.rules;
      if (commission === undefined) throw new StoredItemInvalid('payment', 'rules.commission', 'a map', undefined);
      const amounts = captureAmounts({ payment, commission }, item.commission_mode, amount);
      if (amount > item.amount) throw new AppError('invalid_request', `amount must not exceed the authorized ${item.amount}.`, { errors: [{ field: 'amount', message: 'above the authorization' }] });
      if (amounts.merchant_credit < 0) throw new AppError('invalid_request', 'The fee and commission exceed the amount.', { errors: [{ field: 'amount', message: 'below the fees' }] });
      let transaction: Transaction;
      try {
        transaction = await runtime.ledger().post(
          item.ledger_id,
          {
            type: 'payment_capture',
            reference_id: input.payment_id,
            metadata: { payment_id: input.payment_id },
            post_pending_id: pendingOf(item),
            legs: captureLegs({ currency: item.currency, payer_account_id: item.payer_account_id, settlement_account_id: item.settlement_account_id, revenue_account_id: item.revenue_account_id }, amounts),
          },
          ledgerKey,
        );
      } catch (error) {
        throw resolutionRefused(error, 'captured');
      }
      const plan = pin.rewards !== undefined ? pin.rewards : await planRewards(runtime, earnInput(tenantId, item, amount, startedAt));
      const grants = await postRewards(runtime, plan, { paymentId: input.payment_id, ledgerKey });
      return { transaction, grants, amounts };
    },
    commit: async (result) => {
      const { transaction: posted, grants, amounts } = result as { transaction: Transaction; grants: Grants; amounts: CaptureAmounts };
      const now = runtime.clock.now().toISOString();
      const after: PaymentRecord = { ...item, status: 'captured', captured_amount: amount, fee: amounts.fee, commission: amounts.commission, updated_at: now, ledger_transaction_id: (posted as Transaction).id };
      const payment = toPayment(after);
      const event = outboxItem(runtime, { type: 'payment.captured', tenantId, data: { payment } });
      return {
        items: [
          {
            Update: {
              TableName: runtime.table,
              Key: paymentKeys.payment(input.payment_id),
              UpdateExpression: 'SET #status = :captured, captured_amount = :amount, fee = :fee, commission = :commission, updated_at = :now, ledger_transaction_id = :txn REMOVE gsi3pk, gsi3sk',
              ConditionExpression: '#status = :authorized',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':captured': 'captured', ':authorized': 'authorized', ':amount': amount, ':fee': amounts.fee, ':commission': amounts.commission, ':now': now, ':txn': (posted as Transaction).id },
            },
          },
          event.item,
          ...grantItems(runtime, tenantId, item.user_id, input.payment_id, grants, amount),
        ],
        status: 200,
        body: payment,
      };
    },
  };
});

export const PAYMENT_VOID = defineOperation('payment.void', async ({ runtime, tenantId, request }) => {
  const input = request as ResolveRequest;
  const item = await paymentRecord(runtime, tenantId, input.payment_id);
  return {
    post: async (ledgerKey) => {
      if (item.status !== 'authorized') throw transitionRefused(item, 'voided');
      const pending = pendingOf(item);
      try {
        return await runtime.ledger().voidPending(item.ledger_id, pending, ledgerKey);
      } catch (error) {
        throw resolutionRefused(error, 'voided');
      }
    },
    commit: async () => {
      const now = runtime.clock.now().toISOString();
      const payment = toPayment({ ...item, status: 'voided', updated_at: now });
      const event = outboxItem(runtime, { type: 'payment.voided', tenantId, data: { payment } });
      return {
        items: [{ Update: statusUpdate(runtime.table, input.payment_id, 'voided', now) }, event.item],
        status: 200,
        body: payment,
      };
    },
  };
});

/**
 * Captures an authorization once (partial: the rest is released) or voids it, once per
 * Idempotency-Key (money-moving POSTs require one, spec part 4 conventions). Refuses: not_found,
 * invalid_transition (not authorized, hold expired, or another resolution won), invalid_request.
 */
export async function resolvePayment(
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  paymentId: string,
  action: 'capture' | 'void',
  input: { amount?: number },
  options: { idempotencyKey: string; requestId: string; faults?: SagaFaults },
): Promise<Outcome> {
  const item = await paymentRecord(runtime, tenantId, paymentId, principal.userId);
  const holdExpired = item.status === 'authorized' && item.hold_expires_at !== null && new Date(item.hold_expires_at).getTime() <= runtime.clock.now().getTime();
  const request: ResolveRequest = { payment_id: paymentId, amount: action === 'capture' ? (input.amount ?? null) : null };
  const operation = action === 'capture' ? PAYMENT_CAPTURE : PAYMENT_VOID;
  const pinned: ResolvePin = { hold_expired: holdExpired };
  if (action === 'capture') {
    // What the capture earns is decided now, from the rules of now, and pinned (docs/rewards.md).
    const amount = request.amount ?? item.amount;
    const capturable = item.status === 'authorized' && !holdExpired && amount <= item.amount;
    pinned.rewards = capturable ? await planRewards(runtime, earnInput(tenantId, item, amount, runtime.clock.now().toISOString())) : null;
  }
  return runOperation(runtime, { operation, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned }, options.faults);
}
