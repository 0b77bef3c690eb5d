import { getItem } from '../../aws/store';
import { codec, int, mapOf, nullable, obj, oneOf, opt, orElse, str, strMap, StoredItemInvalid } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import { COMMISSION_MODES, type CommissionMode, type FeeRule } from '../tenancy/fees';
import { feeRule } from '../tenancy/records';
import { paymentKeys } from './keys';

/** The payment record as the API shows it, and what creation, capture, void, refunds and expiry share. */

/** Statuses as stored (spelt here, so the expiry worker does not build the API's schemas). */
const STORED_PAYMENT_STATUSES = ['authorized', 'captured', 'voided', 'expired'] as const;
export type StoredPaymentStatus = (typeof STORED_PAYMENT_STATUSES)[number];
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
  /** The ledger transaction that captured it; null until captured. */
  ledger_transaction_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The payment as stored: what the API shows, and what capture, void, refunds and the expiry worker need. */
export interface PaymentRecord extends Omit<Payment, 'status'> {
  tenant_id: string;
  status: StoredPaymentStatus;
  /** What refunds have claimed (their sum, and each by its operation), before the ledger moved it. */
  refund_reserved: number;
  refund_claims: Record<string, number>;
  ledger_id: string;
  payer_account_id: string;
  settlement_account_id: string;
  revenue_account_id: string;
  /** The tenant's rules when it was created; an order's payment (captured at once) keeps only its payment rule. */
  rules: { payment: FeeRule; commission?: FeeRule };
  /** The ledger pending that holds an authorization's money (authorized payments only). */
  pending_id?: string;
  /** The order it paid (an order's payment only). */
  order_id?: string;
}

/**
 * The payment item's codec (../../kernel/codec.ts). Amounts are integers; fields older payments
 * lack read as the code always took them: no amount captured, refunded, reserved or charged is 0,
 * no commission mode is `deduct`, no metadata is none.
 */
export const toPaymentRecord = codec<PaymentRecord>('payment', {
  id: str,
  tenant_id: str,
  user_id: str,
  merchant_id: str,
  amount: int,
  currency: str,
  status: oneOf(...STORED_PAYMENT_STATUSES),
  captured_amount: orElse(int, () => 0),
  refunded_amount: orElse(int, () => 0),
  refund_reserved: orElse(int, () => 0),
  refund_claims: orElse(mapOf(int), () => ({})),
  fee: orElse(int, () => 0),
  commission: orElse(int, () => 0),
  commission_mode: orElse(oneOf(...COMMISSION_MODES), () => 'deduct'),
  description: nullable(str),
  metadata: orElse(strMap, () => ({})),
  hold_expires_at: nullable(str),
  ledger_id: str,
  payer_account_id: str,
  settlement_account_id: str,
  revenue_account_id: str,
  rules: obj<PaymentRecord['rules']>({ payment: feeRule, commission: opt(feeRule) }),
  pending_id: opt(str),
  order_id: opt(str),
  ledger_transaction_id: nullable(str),
  created_at: str,
  updated_at: str,
});

/** A captured payment's status shows its refunds: `refunded` when whole, `partially_refunded` when some. */
export function toPayment(record: PaymentRecord): Payment {
  const stored = record.status;
  const captured = record.captured_amount;
  const refunded = record.refunded_amount;
  const status: PaymentStatus = stored !== 'captured' || refunded === 0 ? stored : refunded >= captured ? 'refunded' : 'partially_refunded';
  return {
    id: record.id,
    user_id: record.user_id,
    merchant_id: record.merchant_id,
    amount: record.amount,
    currency: record.currency,
    status,
    captured_amount: captured,
    refunded_amount: refunded,
    fee: record.fee,
    commission: record.commission,
    commission_mode: record.commission_mode,
    description: record.description,
    metadata: record.metadata,
    hold_expires_at: record.hold_expires_at,
    ledger_transaction_id: record.ledger_transaction_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The ledger pending of an authorization: one authorized without it is a broken invariant. */
export function pendingOf(record: PaymentRecord): string {
  if (record.pending_id === undefined) throw new StoredItemInvalid('payment', 'pending_id', 'a string', undefined);
  return record.pending_id;
}

/** A payment of the tenant (and of `selfOnly`, a user token's user). Refuses: not_found. */
export async function paymentRecord(deps: StoreDeps, tenantId: string, paymentId: string, selfOnly?: string): Promise<PaymentRecord> {
  const item = await getItem(deps, paymentKeys.payment(paymentId));
  if (!item || item.tenant_id !== tenantId || (selfOnly !== undefined && item.user_id !== selfOnly)) throw new AppError('not_found', `No payment ${paymentId}.`);
  return toPaymentRecord(item);
}

/** What a new payment's record is made of. */
export interface NewPayment {
  id: string;
  tenantId: string;
  userId: string;
  merchantId: string;
  amount: number;
  currency: string;
  capture: boolean;
  amounts: { fee: number; commission: number };
  commissionMode: CommissionMode;
  description: string | null;
  metadata: Record<string, string>;
  holdExpiresAt: string | null;
  createdAt: string;
  /** Internal: what capture, void, refunds and the expiry worker need; a captured payment names its transaction, an authorization its pending. */
  internal: Pick<PaymentRecord, 'ledger_id' | 'payer_account_id' | 'settlement_account_id' | 'revenue_account_id' | 'rules' | 'order_id'> & ({ ledger_transaction_id: string } | { pending_id: string });
}

/** A new payment's item, captured or authorized (the one shape creation and order payment write). */
export function newPaymentItem(input: NewPayment): Record<string, unknown> {
  return {
    ...paymentKeys.payment(input.id),
    ...paymentKeys.paymentIndexes(input.tenantId, input.id, input.userId),
    ...(input.capture ? {} : paymentKeys.hold(input.id, input.holdExpiresAt!)),
    entity: 'payment',
    tenant_id: input.tenantId,
    id: input.id,
    user_id: input.userId,
    merchant_id: input.merchantId,
    amount: input.amount,
    currency: input.currency,
    status: input.capture ? 'captured' : 'authorized',
    captured_amount: input.capture ? input.amount : 0,
    refunded_amount: 0,
    refund_reserved: 0,
    refund_claims: {},
    fee: input.capture ? input.amounts.fee : 0,
    commission: input.capture ? input.amounts.commission : 0,
    commission_mode: input.commissionMode,
    description: input.description,
    metadata: input.metadata,
    hold_expires_at: input.capture ? null : input.holdExpiresAt,
    created_at: input.createdAt,
    updated_at: input.createdAt,
    ...input.internal,
  };
}

export const transitionRefused = (record: PaymentRecord, action: string) =>
  new AppError('invalid_transition', `A ${toPayment(record).status} payment cannot be ${action}.`);


/** The status change of a void or an expiry, conditioned on the payment still being authorized. */
export function statusUpdate(table: string, paymentId: string, status: 'voided' | 'expired', now: string) {
  return {
    TableName: table,
    Key: paymentKeys.payment(paymentId),
    UpdateExpression: 'SET #status = :status, updated_at = :now REMOVE gsi3pk, gsi3sk',
    ConditionExpression: '#status = :authorized',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': status, ':authorized': 'authorized', ':now': now },
  };
}

