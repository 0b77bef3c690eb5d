import { describe, expect, it } from 'vitest';
import { decodeFailure } from '../support/codecs';
import { orderItem, toOrderRecord } from '../../shared/wallet/orders/records';
import { pendingOf, toPayment, toPaymentRecord } from '../../shared/wallet/payments/records';
import { toPaymentRewards } from '../../shared/wallet/rewards/records';

/**
 * The codecs of payments, orders, rewards and merchants (shared/kernel/codec.ts) on items as this
 * code writes them, and as older code wrote them: a field an older item lacks reads as what the
 * code assumed before it read through a codec.
 */

const rule = { bps: 100, flat: 0, min_fee: 0, max_fee: null };

describe('the payment codec', () => {
  const authorized = {
    pk: 'PAYMENT#p1',
    sk: 'PAYMENT',
    gsi1pk: 'TENANT#t1#PAYMENTS',
    gsi1sk: 'p1',
    gsi3pk: 'PAYMENT_HOLDS#1',
    gsi3sk: '2026-01-01T00:00:00.000Z#p1',
    entity: 'payment',
    tenant_id: 't1',
    id: 'p1',
    user_id: 'u1',
    merchant_id: 'm1',
    amount: 3_000,
    currency: 'USD',
    status: 'authorized',
    captured_amount: 0,
    refunded_amount: 0,
    refund_reserved: 0,
    refund_claims: {},
    fee: 0,
    commission: 0,
    commission_mode: 'add',
    description: null,
    metadata: { cart: '7' },
    hold_expires_at: '2026-01-01T00:00:00.000Z',
    created_at: '2025-12-31T00:00:00.000Z',
    updated_at: '2025-12-31T00:00:00.000Z',
    ledger_id: 'l1',
    payer_account_id: 'a1',
    settlement_account_id: 'a2',
    revenue_account_id: 'a3',
    rules: { payment: rule, commission: rule },
    pending_id: 'pe1',
  };

  it('reads an authorization without its keys, and its pending', () => {
    const record = toPaymentRecord(authorized);
    expect(record).not.toHaveProperty('pk');
    expect(record).not.toHaveProperty('gsi3sk');
    expect(record).toMatchObject({ status: 'authorized', commission_mode: 'add', ledger_transaction_id: null, rules: { payment: rule, commission: rule } });
    expect(pendingOf(record)).toBe('pe1');
    expect(toPayment(record)).toMatchObject({ status: 'authorized', description: null, metadata: { cart: '7' }, ledger_transaction_id: null });
  });

  it('reads an older payment\'s missing amounts as 0, its mode as deduct, its metadata and claims as none', () => {
    const { captured_amount: _c, refunded_amount: _r, refund_reserved: _v, refund_claims: _l, fee: _f, commission: _m, commission_mode: _o, metadata: _d, description: _e, ...older } = authorized;
    const record = toPaymentRecord({ ...older, status: 'captured', ledger_transaction_id: 'tx1' });
    expect(record).toMatchObject({ captured_amount: 0, refunded_amount: 0, refund_reserved: 0, refund_claims: {}, fee: 0, commission: 0, commission_mode: 'deduct', metadata: {}, description: null, ledger_transaction_id: 'tx1' });
  });

  it('reads an order\'s payment: captured at once, its payment rule only, its order', () => {
    const { pending_id: _p, ...captured } = authorized;
    const record = toPaymentRecord({ ...captured, status: 'captured', captured_amount: 3_000, refunded_amount: 1_000, rules: { payment: rule }, order_id: 'o1', ledger_transaction_id: 'tx1' });
    expect(record.rules).toEqual({ payment: rule });
    expect(record.order_id).toBe('o1');
    expect(toPayment(record).status).toBe('partially_refunded');
    expect(decodeFailure(() => pendingOf(record))?.field).toBe('pending_id');
  });

  it('refuses a fraction of a minor unit, an unknown status and a claim that is not an amount', () => {
    expect(decodeFailure(() => toPaymentRecord({ ...authorized, amount: 30.5 }))?.field).toBe('amount');
    expect(decodeFailure(() => toPaymentRecord({ ...authorized, status: 'refunded' }))?.field).toBe('status');
    expect(decodeFailure(() => toPaymentRecord({ ...authorized, refund_claims: { op1: '500' } }))?.field).toBe('refund_claims.op1');
  });
});

describe('the order codec', () => {
  const line = { variant_id: 'v1', offering_id: 'f1', sku: 'T-1', title: 'Tee', option_values: ['M'], quantity: 2, unit_amount: 1_500, amount: 3_000, commission_bps: 500 };
  const fields = {
    tenant_id: 't1',
    id: 'o1',
    client_id: 'c1',
    user_id: 'u1',
    status: 'paying',
    lines: [line],
    amount: 3_000,
    currency: 'USD',
    commission: 150,
    commission_mode: 'deduct',
    fee: 0,
    payment_id: null,
    metadata: {},
    expires_at: '2026-01-01T00:15:00.000Z',
    quote: { merchant_id: 'm1', ledger_id: 'l1', payer_account_id: 'a1', settlement_account_id: 'a2', revenue_account_id: 'a3', fee_rule: rule },
    claim: 'op1',
    holds: { v1: 2 },
    version: 2,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };

  it('reads every field an order is written with, so an order put back is the item it was read from', () => {
    const item = orderItem(fields as Parameters<typeof orderItem>[0]);
    expect(orderItem(toOrderRecord(item))).toStrictEqual(item);
    const ended = { ...item, status: 'canceled', claim: null, ended_by: 'op2', restocked: true, sold: { v1: 2 } };
    expect(toOrderRecord(ended)).toMatchObject({ claim: null, ended_by: 'op2', restocked: true, sold: { v1: 2 } });
  });

  it('reads an order from before holds were recorded without them (stock acts on the flags of now)', () => {
    const { holds: _h, ...older } = fields;
    const record = toOrderRecord({ ...older, status: 'open', claim: null });
    expect(record).not.toHaveProperty('holds');
    expect(record).not.toHaveProperty('sold');
  });

  it('refuses a fraction in a line and an unknown status', () => {
    expect(decodeFailure(() => toOrderRecord({ ...fields, lines: [{ ...line, amount: 2_999.5 }] }))?.field).toBe('lines[0].amount');
    expect(decodeFailure(() => toOrderRecord({ ...fields, status: 'refunded' }))?.field).toBe('status');
  });
});

describe('the payment rewards codec', () => {
  const earned = {
    pk: 'PAYMENT#p1',
    sk: 'REWARDS',
    entity: 'payment_rewards',
    tenant_id: 't1',
    user_id: 'u1',
    captured_amount: 3_000,
    grants: {
      cashback: { amount: 30, rule_ids: ['r1'], rules: [{ id: 'r1', version: 2, amount: 30 }], ledger_transaction_id: 'tx1' },
      points: null,
    },
    clawed: { cashback: 0, points: 0 },
  };

  it('reads the grants a capture posted, a grant recorded before plans were pinned without its rules', () => {
    expect(toPaymentRewards(earned).grants.cashback?.ledger_transaction_id).toBe('tx1');
    const older = { ...earned, grants: { cashback: null, points: { amount: 5, commodity: 'PTS', rule_ids: ['r2'], ledger_transaction_id: 'tx2' } } };
    expect(toPaymentRewards(older).grants).toStrictEqual({ cashback: null, points: { amount: 5, commodity: 'PTS', rule_ids: ['r2'], ledger_transaction_id: 'tx2' } });
  });

  it('refuses a grant that is not an amount', () => {
    expect(decodeFailure(() => toPaymentRewards({ ...earned, grants: { ...earned.grants, cashback: { ...earned.grants.cashback, amount: '30' } } }))?.field).toBe('grants.cashback.amount');
  });
});
