import { getItem } from '../../aws/store';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import type { CommissionMode } from '../tenancy/fees';
import { paymentKeys } from './keys';

/** The payment record as the API shows it, and what creation, capture, void, refunds and expiry share. */

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
  /** The ledger transaction that captured it; null until captured. */
  ledger_transaction_id: string | null;
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
    ledger_transaction_id: typeof item.ledger_transaction_id === 'string' ? item.ledger_transaction_id : null,
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
  };
}

/** A payment of the tenant (and of `selfOnly`, a user token's user). Refuses: not_found. */
export async function paymentItem(deps: StoreDeps, tenantId: string, paymentId: string, selfOnly?: string): Promise<Record<string, unknown>> {
  const item = await getItem(deps, paymentKeys.payment(paymentId));
  if (!item || item.tenant_id !== tenantId || (selfOnly !== undefined && item.user_id !== selfOnly)) throw new AppError('not_found', `No payment ${paymentId}.`);
  return item;
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
  /** Internal: what capture, void, refunds and the expiry worker need. */
  internal: Record<string, unknown>;
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

export const transitionRefused = (item: Record<string, unknown>, action: string) =>
  new AppError('invalid_transition', `A ${toPayment(item).status} payment cannot be ${action}.`);


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

