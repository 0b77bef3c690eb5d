import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dueKeys } from '../../aws/due-keys';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { outboxItem } from '../../events/outbox';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Pending, Transaction } from '../../ledger-client/contract';
import type { StoreDeps } from '../deps';
import type { CommissionMode, FeeRule } from '../tenancy/fees';
import { openAccountOnce } from '../tenancy/ledger-accounts';
import { getItem, queryPage, type Page } from '../../aws/store';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { defineOperation, runOperation } from '../saga';
import type { Outcome } from '../../http/outcome';
import type { WalletDeps } from '../deps';
import { authorizationDebit, captureAmounts } from './fees';
import { HOLD_SHARDS, paymentKeys } from './keys';

/**
 * Merchants, card-style payments (authorize / capture / void / expire) and refunds (docs/payments.md).
 * Every money step is a saga (shared/wallet/saga.ts): the ledger call under a key derived
 * from the operation, then the wallet record, its event and the key's answer in one transaction.
 * The ledger resolves a pending exactly once (posted, voided or expired), so a capture and a void
 * (or the expiry worker) racing on one authorization cannot both succeed; the wallet's status
 * change is also conditioned on `authorized`.
 */

/** Largest payer debit in one ledger leg (the ledger's MAX_LEG_AMOUNT). */
export const MAX_PAYMENT_DEBIT = 2 ** 45;
export const DEFAULT_HOLD_SECONDS = 7 * 24 * 3600;
/** The ledger pending outlives the wallet's hold by this much: a backstop, the wallet's worker voids first. */
const LEDGER_EXPIRY_GRACE_SECONDS = 24 * 3600;

/** PAYMENT_HOLD_SECONDS: how long an authorization holds the payer's money (default 7 days). */
export function holdSeconds(): number {
  const raw = Number(process.env.PAYMENT_HOLD_SECONDS);
  return Number.isInteger(raw) && raw > 0 ? raw : DEFAULT_HOLD_SECONDS;
}

// ---------------------------------------------------------------- merchants

export interface Merchant {
  id: string;
  name: string;
  status: 'active';
  metadata: Record<string, string>;
  created_at: string;
}

const toMerchant = (item: Record<string, unknown>): Merchant => ({
  id: String(item.id),
  name: String(item.name),
  status: 'active',
  metadata: (item.metadata as Record<string, string> | undefined) ?? {},
  created_at: String(item.created_at),
});

/** Creates a merchant and its settlement account (owner_type merchant, purpose settlement, floor 0). */
export async function createMerchant(runtime: WalletDeps, tenantId: string, input: { name: string; metadata?: Record<string, string> }): Promise<Merchant> {
  const tenant = await getTenantRecord(runtime, tenantId);
  const id = runtime.ids();
  const settlement = await openAccountOnce(
    runtime.ledger(),
    tenant.ledger_id,
    { owner_type: 'merchant', owner_id: id, purpose: 'settlement', commodity: tenant.currency, floor: 0 },
    `wallet:${tenantId}:merchant:${id}:settlement`,
  );
  const merchant: Merchant = { id, name: input.name, status: 'active', metadata: input.metadata ?? {}, created_at: runtime.clock.now().toISOString() };
  await runtime.client.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: runtime.table,
            Item: { ...paymentKeys.merchant(id), gsi1pk: paymentKeys.tenantMerchants(tenantId), gsi1sk: id, entity: 'merchant', tenant_id: tenantId, settlement_account_id: settlement, ...merchant },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
  return merchant;
}

async function merchantItem(deps: StoreDeps, tenantId: string, merchantId: string): Promise<Record<string, unknown>> {
  const item = await getItem(deps, paymentKeys.merchant(merchantId));
  if (!item || item.tenant_id !== tenantId) throw new AppError('not_found', `No merchant ${merchantId}.`);
  return item;
}

export async function getMerchant(deps: StoreDeps, tenantId: string, merchantId: string): Promise<Merchant> {
  return toMerchant(await merchantItem(deps, tenantId, merchantId));
}

export async function listMerchants(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number }): Promise<Page<Merchant>> {
  const page = await queryPage(deps, { index: 'gsi1', partition: paymentKeys.tenantMerchants(tenantId), cursor: query.cursor, limit: query.limit });
  return { data: page.items.map(toMerchant), next_cursor: page.next_cursor };
}

// ---------------------------------------------------------------- payments

export type StoredPaymentStatus = 'authorized' | 'captured' | 'voided' | 'expired';
export type PaymentStatus = StoredPaymentStatus | 'partially_refunded' | 'refunded';

export interface Payment {
  id: string;
  user_id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  status: PaymentStatus;
  captured_amount: number;
  refunded_amount: number;
  fee: number;
  commission: number;
  commission_mode: CommissionMode;
  description: string | null;
  metadata: Record<string, string>;
  hold_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A captured payment's status shows its refunds: `refunded` when whole, `partially_refunded` when some. */
export function toPayment(item: Record<string, unknown>): Payment {
  const stored = String(item.status) as StoredPaymentStatus;
  const captured = Number(item.captured_amount ?? 0);
  const refunded = Number(item.refunded_amount ?? 0);
  const status: PaymentStatus = stored !== 'captured' || refunded === 0 ? stored : refunded >= captured ? 'refunded' : 'partially_refunded';
  return {
    id: String(item.id),
    user_id: String(item.user_id),
    merchant_id: String(item.merchant_id),
    amount: Number(item.amount),
    currency: String(item.currency),
    status,
    captured_amount: captured,
    refunded_amount: refunded,
    fee: Number(item.fee ?? 0),
    commission: Number(item.commission ?? 0),
    commission_mode: item.commission_mode === 'add' ? 'add' : 'deduct',
    description: typeof item.description === 'string' ? item.description : null,
    metadata: (item.metadata as Record<string, string> | undefined) ?? {},
    hold_expires_at: typeof item.hold_expires_at === 'string' ? item.hold_expires_at : null,
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
  };
}

interface PaymentRequest {
  user_id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  capture: boolean;
  description: string | null;
  metadata: Record<string, string>;
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
}

const legOf = (commodity: string) => (account_id: string, direction: 'debit' | 'credit', amount: number) => ({ account_id, direction, amount, commodity });

/** Capture legs: payer debit, merchant and revenue credits (zero legs left out). */
function captureLegs(quote: Pick<PaymentQuote, 'currency' | 'payer_account_id' | 'settlement_account_id' | 'revenue_account_id'>, amounts: ReturnType<typeof captureAmounts>) {
  const leg = legOf(quote.currency);
  return [
    leg(quote.payer_account_id, 'debit', amounts.payer_debit),
    ...(amounts.merchant_credit > 0 ? [leg(quote.settlement_account_id, 'credit', amounts.merchant_credit)] : []),
    ...(amounts.revenue_credit > 0 ? [leg(quote.revenue_account_id, 'credit', amounts.revenue_credit)] : []),
  ];
}

export const PAYMENT_CREATE = defineOperation('payment.create', async ({ runtime, tenantId, operationId, request, pinned, startedAt }) => {
  const input = request as PaymentRequest;
  if (!pinned) throw new Error('a payment operation was stored without its quote');
  const quote = pinned as PaymentQuote;
  const amounts = captureAmounts(quote.rules, quote.commission_mode, input.amount);
  const leg = legOf(quote.currency);
  return {
    post: (ledgerKey) =>
      input.capture
        ? runtime.ledger().post(quote.ledger_id, { type: 'payment', reference_id: operationId, metadata: { payment_id: operationId }, legs: captureLegs(quote, amounts) }, ledgerKey)
        : runtime.ledger().reserve(
            quote.ledger_id,
            {
              type: 'payment',
              reference_id: operationId,
              metadata: { payment_id: operationId },
              legs: [leg(quote.payer_account_id, 'debit', authorizationDebit(quote.rules, quote.commission_mode, input.amount)), leg(quote.settlement_account_id, 'credit', authorizationDebit(quote.rules, quote.commission_mode, input.amount))],
              expires_at: quote.ledger_expires_at,
            },
            ledgerKey,
          ),
    commit: async (posted) => {
      const item: Record<string, unknown> = {
        ...paymentKeys.payment(operationId),
        ...paymentKeys.paymentIndexes(tenantId, operationId, input.user_id),
        ...(input.capture ? {} : paymentKeys.hold(operationId, quote.hold_expires_at!)),
        entity: 'payment',
        tenant_id: tenantId,
        id: operationId,
        user_id: input.user_id,
        merchant_id: input.merchant_id,
        amount: input.amount,
        currency: quote.currency,
        status: input.capture ? 'captured' : 'authorized',
        captured_amount: input.capture ? input.amount : 0,
        refunded_amount: 0,
        refund_reserved: 0,
        refund_claims: {},
        fee: input.capture ? amounts.fee : 0,
        commission: input.capture ? amounts.commission : 0,
        commission_mode: quote.commission_mode,
        description: input.description,
        metadata: input.metadata,
        hold_expires_at: input.capture ? null : quote.hold_expires_at,
        created_at: startedAt,
        updated_at: startedAt,
        // Internal: what capture, void, refunds and the expiry worker need.
        ledger_id: quote.ledger_id,
        payer_account_id: quote.payer_account_id,
        settlement_account_id: quote.settlement_account_id,
        revenue_account_id: quote.revenue_account_id,
        rules: quote.rules,
        ...(input.capture ? { ledger_transaction_id: (posted as Transaction).id } : { pending_id: (posted as Pending).id }),
      };
      const payment = toPayment(item);
      const event = outboxItem(runtime, { type: input.capture ? 'payment.captured' : 'payment.authorized', tenantId, data: { payment } });
      return {
        items: [{ Put: { TableName: runtime.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, event.item],
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
export async function createPayment(runtime: WalletDeps, principal: Principal, tenantId: string, input: PaymentInput, options: { idempotencyKey: string; requestId: string }): Promise<Outcome> {
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
  const [tenant, user, merchant] = await Promise.all([getTenantRecord(runtime, tenantId), getUserRecord(runtime, tenantId, userId), merchantItem(runtime, tenantId, input.merchant_id)]);
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
  const hold = holdSeconds();
  const quote: PaymentQuote = {
    ledger_id: tenant.ledger_id,
    currency: tenant.currency,
    payer_account_id: user.cash_account_id,
    settlement_account_id: String(merchant.settlement_account_id),
    revenue_account_id: tenant.accounts.revenue,
    rules,
    commission_mode: tenant.commission_mode,
    hold_expires_at: request.capture ? null : new Date(now + hold * 1000).toISOString(),
    ledger_expires_at: request.capture ? null : new Date(now + (hold + LEDGER_EXPIRY_GRACE_SECONDS) * 1000).toISOString(),
  };
  return runOperation(runtime, { operation: PAYMENT_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned: quote });
}

async function paymentItem(deps: StoreDeps, tenantId: string, paymentId: string, selfOnly?: string): Promise<Record<string, unknown>> {
  const item = await getItem(deps, paymentKeys.payment(paymentId));
  if (!item || item.tenant_id !== tenantId || (selfOnly !== undefined && item.user_id !== selfOnly)) throw new AppError('not_found', `No payment ${paymentId}.`);
  return item;
}

export async function getPayment(deps: StoreDeps, tenantId: string, paymentId: string, options: { selfOnly?: string } = {}): Promise<Payment> {
  return toPayment(await paymentItem(deps, tenantId, paymentId, options.selfOnly));
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
export async function listPayments(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number; user_id?: string; status?: PaymentStatus }, options: { selfOnly?: string } = {}): Promise<Page<Payment>> {
  const userId = query.user_id ?? options.selfOnly;
  if (options.selfOnly !== undefined && userId !== options.selfOnly) throw new AppError('user_not_found', `No user ${userId}.`);
  if (userId !== undefined) await getUserRecord(deps, tenantId, userId);
  const page = await queryPage(deps, {
    index: userId === undefined ? 'gsi1' : 'gsi2',
    partition: userId === undefined ? paymentKeys.tenantPayments(tenantId) : paymentKeys.userPayments(userId),
    cursor: query.cursor,
    limit: query.limit,
    filter: statusFilter(query.status),
    scanBudget: 1_000,
  });
  return { data: page.items.map(toPayment), next_cursor: page.next_cursor };
}

// ---------------------------------------------------------------- capture and void

interface ResolveRequest {
  payment_id: string;
  amount: number | null;
}

/** Pinned when a capture or void starts: whether the hold had already run out then. */
interface ResolvePin {
  hold_expired: boolean;
}

const transitionRefused = (item: Record<string, unknown>, action: string) =>
  new AppError('invalid_transition', `A ${toPayment(item).status} payment cannot be ${action}.`);

/** The ledger resolves a pending once: `conflict` there means a capture, void or expiry won. */
function resolutionRefused(error: unknown, action: string): unknown {
  if (error instanceof LedgerRefusal && error.code === 'conflict') return new AppError('invalid_transition', `The authorization was already resolved; the payment cannot be ${action}.`);
  return error;
}

export const PAYMENT_CAPTURE = defineOperation('payment.capture', async ({ runtime, tenantId, request, pinned }) => {
  const input = request as ResolveRequest;
  const pin = pinned as ResolvePin;
  const item = await paymentItem(runtime, tenantId, input.payment_id);
  const amount = input.amount ?? Number(item.amount);
  const rules = item.rules as { payment: FeeRule; commission: FeeRule };
  const mode = item.commission_mode === 'add' ? 'add' : 'deduct';
  const amounts = captureAmounts(rules, mode, amount);
  return {
    post: async (ledgerKey) => {
      if (item.status !== 'authorized' || pin.hold_expired) throw pin.hold_expired && item.status === 'authorized' ? new AppError('invalid_transition', 'The authorization has expired.') : transitionRefused(item, 'captured');
      if (amount > Number(item.amount)) throw new AppError('invalid_request', `amount must not exceed the authorized ${String(item.amount)}.`, { errors: [{ field: 'amount', message: 'above the authorization' }] });
      if (amounts.merchant_credit < 0) throw new AppError('invalid_request', 'The fee and commission exceed the amount.', { errors: [{ field: 'amount', message: 'below the fees' }] });
      try {
        return await runtime.ledger().post(
          String(item.ledger_id),
          {
            type: 'payment_capture',
            reference_id: input.payment_id,
            metadata: { payment_id: input.payment_id },
            post_pending_id: String(item.pending_id),
            legs: captureLegs({ currency: String(item.currency), payer_account_id: String(item.payer_account_id), settlement_account_id: String(item.settlement_account_id), revenue_account_id: String(item.revenue_account_id) }, amounts),
          },
          ledgerKey,
        );
      } catch (error) {
        throw resolutionRefused(error, 'captured');
      }
    },
    commit: async (posted) => {
      const now = runtime.clock.now().toISOString();
      const after = { ...item, status: 'captured', captured_amount: amount, fee: amounts.fee, commission: amounts.commission, updated_at: now };
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
        ],
        status: 200,
        body: payment,
      };
    },
  };
});

export const PAYMENT_VOID = defineOperation('payment.void', async ({ runtime, tenantId, request }) => {
  const input = request as ResolveRequest;
  const item = await paymentItem(runtime, tenantId, input.payment_id);
  return {
    post: async (ledgerKey) => {
      if (item.status !== 'authorized') throw transitionRefused(item, 'voided');
      try {
        return await runtime.ledger().voidPending(String(item.ledger_id), String(item.pending_id), ledgerKey);
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

function statusUpdate(table: string, paymentId: string, status: 'voided' | 'expired', now: string) {
  return {
    TableName: table,
    Key: paymentKeys.payment(paymentId),
    UpdateExpression: 'SET #status = :status, updated_at = :now REMOVE gsi3pk, gsi3sk',
    ConditionExpression: '#status = :authorized',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': status, ':authorized': 'authorized', ':now': now },
  };
}

/**
 * Captures an authorization once (partial: the rest is released) or voids it. Without an
 * Idempotency-Key the key is derived from the payment and the action. Refuses: not_found,
 * invalid_transition (not authorized, hold expired, or another resolution won), invalid_request.
 */
export async function resolvePayment(
  runtime: WalletDeps,
  principal: Principal,
  tenantId: string,
  paymentId: string,
  action: 'capture' | 'void',
  input: { amount?: number },
  options: { idempotencyKey?: string; requestId: string },
): Promise<Outcome> {
  const item = await paymentItem(runtime, tenantId, paymentId, principal.userId);
  const holdExpired = item.status === 'authorized' && typeof item.hold_expires_at === 'string' && new Date(item.hold_expires_at).getTime() <= runtime.clock.now().getTime();
  const request: ResolveRequest = { payment_id: paymentId, amount: action === 'capture' ? (input.amount ?? null) : null };
  return runOperation(runtime, {
    operation: action === 'capture' ? PAYMENT_CAPTURE : PAYMENT_VOID,
    tenantId,
    idempotencyKey: options.idempotencyKey ?? `payment:${paymentId}:${action}`,
    request,
    principal,
    requestId: options.requestId,
    pinned: { hold_expired: holdExpired } satisfies ResolvePin,
  });
}

/**
 * The expiry worker: voids every authorization whose hold has passed (status `expired`, one
 * payment.expired: the status change is conditioned on `authorized`). Returns how many expired.
 */
export async function expireHolds(runtime: WalletDeps): Promise<number> {
  const now = runtime.clock.now().toISOString();
  let expired = 0;
  for await (const hold of dueKeys(runtime.client, runtime.table, { index: 'gsi3', shards: HOLD_SHARDS, partitionOf: paymentKeys.holdShard, before: now })) {
    const item = await getItem(runtime, { pk: hold.pk, sk: hold.sk });
    if (!item || item.status !== 'authorized') continue;
    try {
      await runtime.ledger().voidPending(String(item.ledger_id), String(item.pending_id), `wallet:${String(item.tenant_id)}:${String(item.id)}:expire`);
    } catch {
      // Already resolved (ledger `conflict`): a capture or void in flight owns it and its saga
      // commits. Anything else is transient: the next run tries again.
      continue;
    }
    const at = runtime.clock.now().toISOString();
    const payment = toPayment({ ...item, status: 'expired', updated_at: at });
    const event = outboxItem(runtime, { type: 'payment.expired', tenantId: String(item.tenant_id), data: { payment } });
    try {
      await runtime.client.send(new TransactWriteCommand({ TransactItems: [{ Update: statusUpdate(runtime.table, payment.id, 'expired', at) }, event.item] }));
      expired += 1;
    } catch (error) {
      if ((error as { name?: string }).name !== 'TransactionCanceledException') throw error;
    }
  }
  return expired;
}

// ---------------------------------------------------------------- refunds

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

const toRefund = (item: Record<string, unknown>): Refund => ({
  id: String(item.id),
  payment_id: String(item.payment_id),
  user_id: String(item.user_id),
  merchant_id: String(item.merchant_id),
  amount: Number(item.amount),
  currency: String(item.currency),
  status: 'completed',
  reason: typeof item.reason === 'string' ? item.reason : null,
  ledger_transaction_id: String(item.ledger_transaction_id),
  created_at: String(item.created_at),
});

interface RefundRequest {
  payment_id: string;
  amount: number | null;
  reason: string | null;
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
}

const refundTooLarge = (remaining: number) =>
  new AppError('invalid_request', `amount exceeds what is left to refund (${remaining}).`, { errors: [{ field: 'amount', message: 'exceeds the refundable amount' }] });

export const REFUND_CREATE = defineOperation('refund.create', async ({ runtime, tenantId, operationId, request, pinned, startedAt }) => {
  const input = request as RefundRequest;
  const quote = pinned as RefundQuote;
  const paymentKey = paymentKeys.payment(input.payment_id);
  /** Claims the amount on the payment before the ledger moves money (idempotent per operation). */
  const claim = async () => {
    try {
      await runtime.client.send(
        new UpdateCommand({
          TableName: runtime.table,
          Key: paymentKey,
          UpdateExpression: 'SET refund_claims.#op = :amount ADD refund_reserved :amount',
          ConditionExpression: '#status = :captured AND attribute_not_exists(refund_claims.#op) AND refund_reserved <= :limit',
          ExpressionAttributeNames: { '#op': operationId, '#status': 'status' },
          ExpressionAttributeValues: { ':amount': quote.amount, ':captured': 'captured', ':limit': quote.captured_amount - quote.amount },
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      const item = await getItem(runtime, paymentKey);
      const claims = (item?.refund_claims as Record<string, unknown> | undefined) ?? {};
      if (claims[operationId] !== undefined) return; // a resume: already claimed
      throw refundTooLarge(Math.max(0, quote.captured_amount - Number(item?.refund_reserved ?? 0)));
    }
  };
  const release = () =>
    runtime.client.send(
      new UpdateCommand({
        TableName: runtime.table,
        Key: paymentKey,
        UpdateExpression: 'REMOVE refund_claims.#op ADD refund_reserved :minus',
        ConditionExpression: 'attribute_exists(refund_claims.#op)',
        ExpressionAttributeNames: { '#op': operationId },
        ExpressionAttributeValues: { ':minus': -quote.amount },
      }),
    );
  const leg = legOf(quote.currency);
  return {
    post: async (ledgerKey) => {
      if (quote.refusal) throw new AppError(quote.refusal.code, quote.refusal.detail);
      await claim();
      try {
        return await runtime.ledger().post(
          quote.ledger_id,
          { type: 'refund', reference_id: operationId, metadata: { refund_id: operationId, payment_id: input.payment_id }, legs: [leg(quote.settlement_account_id, 'debit', quote.amount), leg(quote.payer_account_id, 'credit', quote.amount)] },
          ledgerKey,
        );
      } catch (error) {
        // A refusal (the merchant's settlement floor: insufficient_funds) gives the claim back.
        if (error instanceof LedgerRefusal && error.code !== 'idempotency_in_flight' && error.code !== 'idempotency_key_reuse') await release().catch(() => undefined);
        throw error;
      }
    },
    commit: async (posted) => {
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
      return {
        items: [
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
        ],
        status: 201,
        body: refund,
      };
    },
  };
});

/**
 * Refunds a captured payment, whole (amount omitted: what is left) or in part, once per
 * Idempotency-Key. The merchant returns the refunded amount in full; fees and commission stay with
 * the platform. Refuses: not_found, invalid_transition (not captured, or nothing left),
 * invalid_request (more than is left, also when a concurrent refund took it), insufficient_funds
 * (the merchant's settlement balance), idempotency_key_reuse, idempotency_in_flight.
 */
export async function createRefund(runtime: WalletDeps, principal: Principal, tenantId: string, input: { payment_id: string; amount?: number; reason?: string }, options: { idempotencyKey: string; requestId: string }): Promise<Outcome> {
  const item = await paymentItem(runtime, tenantId, input.payment_id, principal.userId);
  const request: RefundRequest = { payment_id: input.payment_id, amount: input.amount ?? null, reason: input.reason ?? null };
  const captured = Number(item.captured_amount ?? 0);
  const remaining = captured - Number(item.refund_reserved ?? 0);
  const amount = input.amount ?? remaining;
  const quote: RefundQuote = {
    ledger_id: String(item.ledger_id),
    currency: String(item.currency),
    user_id: String(item.user_id),
    merchant_id: String(item.merchant_id),
    payer_account_id: String(item.payer_account_id),
    settlement_account_id: String(item.settlement_account_id),
    captured_amount: captured,
    amount,
  };
  const refusal = item.status !== 'captured' || remaining <= 0 ? transitionRefused(item, 'refunded') : amount > remaining ? refundTooLarge(remaining) : undefined;
  if (refusal) quote.refusal = { code: refusal.code as 'invalid_transition' | 'invalid_request', detail: refusal.message };
  return runOperation(runtime, { operation: REFUND_CREATE, tenantId, idempotencyKey: options.idempotencyKey, request, principal, requestId: options.requestId, pinned: quote });
}

export async function listRefunds(deps: StoreDeps, tenantId: string, query: { cursor?: string; limit: number; user_id?: string; payment_id?: string }, options: { selfOnly?: string } = {}): Promise<Page<Refund>> {
  const userId = query.user_id ?? options.selfOnly;
  if (options.selfOnly !== undefined && userId !== options.selfOnly) throw new AppError('user_not_found', `No user ${userId}.`);
  if (userId !== undefined) await getUserRecord(deps, tenantId, userId);
  const page = await queryPage(deps, {
    index: userId === undefined ? 'gsi1' : 'gsi2',
    partition: userId === undefined ? paymentKeys.tenantRefunds(tenantId) : paymentKeys.userRefunds(userId),
    cursor: query.cursor,
    limit: query.limit,
    ...(query.payment_id === undefined ? {} : { filter: { expression: 'payment_id = :payment', values: { ':payment': query.payment_id } }, scanBudget: 1_000 }),
  });
  return { data: page.items.map(toRefund), next_cursor: page.next_cursor };
}
