import { queryPage, type Page, type CreatedRange } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import type { Principal } from '../../http/principal';
import { config } from '../../kernel/config';
import { AppError } from '../../kernel/errors';
import type { Pending, Transaction } from '../../ledger-client/contract';
import type { StoreDeps, WalletDeps } from '../deps';
import { grantItems, planRewards, postRewards, type Grants, type RewardPlan } from '../rewards/earn';
import { defineOperation } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import type { CommissionMode, FeeRule } from '../tenancy/fees';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { authorizationDebit, captureAmounts, MAX_PAYMENT_DEBIT } from './fees';
import { paymentKeys } from './keys';
import { merchantRecord } from '../merchants/merchants';
import { captureLegs, legOf } from '../money/legs';
import { newPaymentItem, paymentRecord, toPayment, toPaymentRecord, type Payment, type PaymentStatus } from './records';

/**
 * Card-style payments (docs/payments.md): created captured at once or authorized (a ledger pending
 * that holds the payer's money); capture and void are ./capture.ts, refunds ./refunds.ts and the
 * expiry of holds ./holds.ts. Every money step is a saga (shared/wallet/saga.ts): the ledger call
 * under a key derived from the operation, then the wallet record, its event and the key's answer
 * in one transaction.
 */

/** The ledger pending outlives the wallet's hold by this much: a backstop, the wallet's worker voids first. */
const LEDGER_EXPIRY_GRACE_SECONDS = 24 * 3600;

interface PaymentRequest {
  user_id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  capture: boolean;
  description: string | null;
  metadata: Record<string, string>;
}

/** What the ledger step did: the payment's posting or hold, and the rewards a capture earned. */
interface Posted {
  ledger: Transaction | Pending;
  grants: Grants;
}

interface PaymentQuote {
  ledger_id: string;
  currency: string;
  payer_account_id: string;
  settlement_account_id: string;
  revenue_account_id: string;
  rules: { payment: FeeRule; commission: FeeRule };
  commission_mode: CommissionMode;
  hold_expires_at: string | null;
  ledger_expires_at: string | null;
  /** What a capture at once earns (null: nothing). Absent on quotes pinned before plans were: planned at the resume. */
  rewards?: RewardPlan | null;
}

/** What a payment captured at once earns on: its merchant's client's rules, on its whole amount. */
const earnInput = (tenantId: string, input: Pick<PaymentRequest, 'user_id' | 'merchant_id' | 'amount'>, quote: Pick<PaymentQuote, 'ledger_id' | 'currency' | 'payer_account_id'>, at: string) => ({
  tenantId,
  ledgerId: quote.ledger_id,
  currency: quote.currency,
  userId: input.user_id,
  payerAccountId: quote.payer_account_id,
  merchantId: input.merchant_id,
  lines: [{ offeringId: null, amount: input.amount }],
  at,
});

export const PAYMENT_CREATE = defineOperation('payment.create', async ({ runtime, tenantId, operationId, request, pinned, startedAt }) => {
  const input = request as PaymentRequest;
  if (!pinned) throw new Error('a payment operation was stored without its quote');
  const quote = pinned as PaymentQuote;
  const amounts = captureAmounts(quote.rules, quote.commission_mode, input.amount);
  const leg = legOf(quote.currency);
  return {
    post: async (ledgerKey): Promise<Posted> => {
      if (input.capture) {
        const transaction = await runtime.ledger().post(quote.ledger_id, { type: 'payment', reference_id: operationId, metadata: { payment_id: operationId }, legs: captureLegs(quote, amounts) }, ledgerKey);
        const plan = quote.rewards !== undefined ? quote.rewards : await planRewards(runtime, earnInput(tenantId, input, quote, startedAt));
        const grants = await postRewards(runtime, plan, { paymentId: operationId, ledgerKey });
        return { ledger: transaction, grants };
      }
      return {
        ledger: await runtime.ledger().reserve(
            quote.ledger_id,
            {
              type: 'payment',
              reference_id: operationId,
              metadata: { payment_id: operationId },
              legs: [leg(quote.payer_account_id, 'debit', authorizationDebit(quote.rules, quote.commission_mode, input.amount)), leg(quote.settlement_account_id, 'credit', authorizationDebit(quote.rules, quote.commission_mode, input.amount))],
              // Null only on a capture's quote, which posts instead.
              expires_at: quote.ledger_expires_at ?? undefined,
            },
            ledgerKey,
          ),
        grants: { cashback: null, points: null },
      };
    },
    commit: async (result) => {
      const posted = (result as Posted).ledger;
      const { grants } = result as Posted;
      const item = newPaymentItem({
        id: operationId,
        tenantId,
        userId: input.user_id,
        merchantId: input.merchant_id,
        amount: input.amount,
        currency: quote.currency,
        capture: input.capture,
        amounts,
        commissionMode: quote.commission_mode,
        description: input.description,
        metadata: input.metadata,
        holdExpiresAt: quote.hold_expires_at,
        createdAt: startedAt,
        internal: {
          ledger_id: quote.ledger_id,
          payer_account_id: quote.payer_account_id,
          settlement_account_id: quote.settlement_account_id,
          revenue_account_id: quote.revenue_account_id,
          rules: quote.rules,
          ...(input.capture ? { ledger_transaction_id: (posted as Transaction).id } : { pending_id: (posted as Pending).id }),
        },
      });
      // The view of the item as it will be read back.
      const payment = toPayment(toPaymentRecord(item));
      const event = outboxItem(runtime, { type: input.capture ? 'payment.captured' : 'payment.authorized', tenantId, data: { payment } });
      return {
        items: [{ Put: { TableName: runtime.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, event.item, ...grantItems(runtime, tenantId, input.user_id, operationId, grants, input.amount)],
        status: 201,
        body: payment,
      };
    },
  };
});

export interface PaymentInput {
  user_id?: string;
  merchant_id: string;
  amount: number;
  currency: string;
  capture?: boolean;
  description?: string;
  metadata?: Record<string, string>;
}

/**
 * Creates a payment once per Idempotency-Key: `capture` true posts it at once (`captured`), false
 * reserves the money (`authorized`, held until hold_expires_at). Refuses: invalid_request (no user,
 * wrong currency, fees above the amount, too large), user_not_found, not_found (merchant),
 * insufficient_funds and the ledger's other refusals, idempotency_key_reuse, idempotency_in_flight.
 */
export async function createPayment(runtime: WalletDeps, principal: Principal, tenantId: string, input: PaymentInput, options: { idempotencyKey: string; requestId: string; faults?: SagaFaults }): Promise<Outcome> {
  const userId = input.user_id ?? principal.userId;
  if (userId === undefined) throw new AppError('invalid_request', 'user_id is required.', { errors: [{ field: 'user_id', message: 'required' }] });
  if (principal.userId !== undefined && userId !== principal.userId) throw new AppError('user_not_found', `No user ${userId}.`);
  const request: PaymentRequest = {
    user_id: userId,
    merchant_id: input.merchant_id,
    amount: input.amount,
    currency: input.currency,
    capture: input.capture ?? true,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
  };
  const [tenant, user, merchant] = await Promise.all([getTenantRecord(runtime, tenantId), getUserRecord(runtime, tenantId, userId), merchantRecord(runtime, tenantId, input.merchant_id)]);
  if (request.currency !== tenant.currency) {
    throw new AppError('invalid_request', `currency must be the tenant's ${tenant.currency}.`, { errors: [{ field: 'currency', message: `must be ${tenant.currency}` }] });
  }
  const rules = { payment: tenant.fees.payment, commission: tenant.fees.commission };
  const amounts = captureAmounts(rules, tenant.commission_mode, request.amount);
  if (amounts.merchant_credit < 0) {
    throw new AppError('invalid_request', `The fee (${amounts.fee}) and commission (${amounts.commission}) exceed the amount.`, { errors: [{ field: 'amount', message: 'below the fees' }] });
  }
  if (authorizationDebit(rules, tenant.commission_mode, request.amount) > MAX_PAYMENT_DEBIT) {
    throw new AppError('invalid_request', `amount with its commission must not exceed ${MAX_PAYMENT_DEBIT}.`, { errors: [{ field: 'amount', message: 'too large' }] });
  }
  const now = runtime.clock.now().getTime();
  const hold = config.PAYMENT_HOLD_SECONDS;
  const quote: PaymentQuote = {
    ledger_id: tenant.ledger_id,
    currency: tenant.currency,
    payer_account_id: user.cash_account_id,
    settlement_account_id: merchant.settlement_account_id,
    revenue_account_id: tenant.accounts.revenue,
    rules,
    commission_mode: tenant.commission_mode,
    hold_expires_at: request.capture ? null : new Date(now + hold * 1000).toISOString(),
    ledger_expires_at: request.capture ? null : new Date(now + (hold + LEDGER_EXPIRY_GRACE_SECONDS) * 1000).toISOString(),
  };
  // What a capture earns is decided now, from the rules of now, and pinned (docs/rewards.md).
  quote.rewards = request.capture ? await planRewards(runtime, earnInput(tenantId, request, quote, new Date(now).toISOString())) : null;
  return runOperation(runtime, { operation: PAYMENT_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned: quote }, options.faults);
}

export async function getPayment(deps: StoreDeps, tenantId: string, paymentId: string, options: { selfOnly?: string } = {}): Promise<Payment> {
  return toPayment(await paymentRecord(deps, tenantId, paymentId, options.selfOnly));
}

function statusFilter(status: PaymentStatus | undefined): { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined {
  if (status === undefined) return undefined;
  const names = { '#status': 'status' };
  switch (status) {
    case 'captured':
      return { expression: '#status = :s AND refunded_amount = :zero', names, values: { ':s': 'captured', ':zero': 0 } };
    case 'partially_refunded':
      return { expression: '#status = :s AND refunded_amount > :zero AND refunded_amount < captured_amount', names, values: { ':s': 'captured', ':zero': 0 } };
    case 'refunded':
      return { expression: '#status = :s AND refunded_amount > :zero AND refunded_amount >= captured_amount', names, values: { ':s': 'captured', ':zero': 0 } };
    default:
      return { expression: '#status = :s', names, values: { ':s': status } };
  }
}

/** The tenant's payments (or one user's; a user token's own), newest first, optionally by status. */
export async function listPayments(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number; user_id?: string; status?: PaymentStatus } & CreatedRange, options: { selfOnly?: string } = {}): Promise<Page<Payment>> {
  const userId = query.user_id ?? options.selfOnly;
  if (options.selfOnly !== undefined && userId !== options.selfOnly) throw new AppError('user_not_found', `No user ${userId}.`);
  if (userId !== undefined) await getUserRecord(deps, tenantId, userId);
  const page = await queryPage(deps, {
    index: userId === undefined ? 'gsi1' : 'gsi2',
    partition: userId === undefined ? paymentKeys.tenantPayments(tenantId) : paymentKeys.userPayments(userId),
    cursor: query.cursor, created: query,
    limit: query.limit,
    filter: statusFilter(query.status),
    scanBudget: 1_000,
  });
  return { data: page.items.map((item) => toPayment(toPaymentRecord(item))), next_cursor: page.next_cursor };
}
