import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/kernel/clock';
import type { WalletDeps } from '../../shared/wallet/deps';
import { resolvePayment } from '../../shared/wallet/payments/capture';
import { createMerchant } from '../../shared/wallet/merchants/merchants';
import { createPayment } from '../../shared/wallet/payments/payments';
import { createRefund } from '../../shared/wallet/orders/refunds';
import { crashAfterLedger, tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';
import { apiKeyPrincipals, finishCrashedSaga, requestIds } from '../support/services';

/**
 * Crash safety of the payment sagas, as the transfer and top-up sagas have it: the process dies
 * after the ledger moved money and before the wallet recorded it. Either the client retries with
 * the same Idempotency-Key, or nobody does and the sweeper finishes it; both end with the money
 * moved once, one payment (or refund) record and one event.
 */

let f: TenancyFixture;
let clock: ManualClock;
let runtime: WalletDeps;

beforeAll(async () => {
  f = await tenancyFixture();
  clock = new ManualClock(new Date());
  runtime = f.walletRuntime(clock);
});
afterAll(() => f?.stop());

const crash = crashAfterLedger;
const operator = apiKeyPrincipals(['payments:write', 'refunds:write']);

async function payerAndMerchant() {
  const tenant = await f.tenant();
  const payer = await f.user(tenant.id);
  await f.fund(tenant, payer.cash_account_id, 10_000);
  const merchant = await createMerchant(runtime, tenant.id, { name: 'Shop' });
  return { tenant, payer, merchant };
}

/** Finishes by the client's retry, or (nobody retrying) by the sweeper once the saga is old enough. */

describe.each(['retry', 'sweep'] as const)('a crash between the ledger and the wallet, finished by %s', (how) => {
  it('authorizes once', async () => {
    const { tenant, payer, merchant } = await payerAndMerchant();
    const input = { user_id: payer.id, merchant_id: merchant.id, amount: 2_500, currency: 'USD', capture: false };
    const key = requestIds();
    await expect(createPayment(runtime, operator(tenant.id), tenant.id, input, { ...key, faults: crash })).rejects.toThrow('crashed');
    expect(await f.balance(tenant, payer.cash_account_id)).toMatchObject({ available: 7_500, pending_debits: 2_500 });

    const done = await finishCrashedSaga(how, () => createPayment(runtime, operator(tenant.id), tenant.id, input, key), { runtime, clock, sweepEarly: true });

    expect(done.status).toBe(201);
    const payment = JSON.parse(done.body) as { id: string; status: string };
    expect(payment.status).toBe('authorized');
    expect(await f.balance(tenant, payer.cash_account_id)).toMatchObject({ available: 7_500, pending_debits: 2_500 });
    expect((await storedEvents(f.deps, tenant.id, 'payment.authorized')).map((e) => e.data.payment.id)).toEqual([payment.id]);
  });

  it('captures once', async () => {
    const { tenant, payer, merchant } = await payerAndMerchant();
    const authorized = JSON.parse((await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: payer.id, merchant_id: merchant.id, amount: 2_000, currency: 'USD', capture: false }, requestIds())).body) as { id: string };
    const key = requestIds();
    await expect(resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'capture', { amount: 1_500 }, { ...key, faults: crash })).rejects.toThrow('crashed');

    const done = await finishCrashedSaga(how, () => resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'capture', { amount: 1_500 }, key), { runtime, clock, sweepEarly: true });

    expect(JSON.parse(done.body)).toMatchObject({ status: 'captured', captured_amount: 1_500 });
    expect(await f.balance(tenant, payer.cash_account_id)).toMatchObject({ posted: 8_500, pending_debits: 0 });
    expect(await f.transactions(tenant, 'payment_capture')).toHaveLength(1);
    expect((await storedEvents(f.deps, tenant.id, 'payment.captured')).map((e) => e.data.payment.id)).toEqual([authorized.id]);
  });

  it('voids once', async () => {
    const { tenant, payer, merchant } = await payerAndMerchant();
    const authorized = JSON.parse((await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: payer.id, merchant_id: merchant.id, amount: 900, currency: 'USD', capture: false }, requestIds())).body) as { id: string };
    const key = requestIds();
    await expect(resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'void', {}, { ...key, faults: crash })).rejects.toThrow('crashed');

    const done = await finishCrashedSaga(how, () => resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'void', {}, key), { runtime, clock, sweepEarly: true });

    expect(JSON.parse(done.body)).toMatchObject({ status: 'voided' });
    expect(await f.balance(tenant, payer.cash_account_id)).toMatchObject({ available: 10_000, pending_debits: 0 });
    expect((await storedEvents(f.deps, tenant.id, 'payment.voided')).map((e) => e.data.payment.id)).toEqual([authorized.id]);
  });

  it('refunds once', async () => {
    const { tenant, payer, merchant } = await payerAndMerchant();
    const captured = JSON.parse((await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: payer.id, merchant_id: merchant.id, amount: 3_000, currency: 'USD' }, requestIds())).body) as { id: string };
    const key = requestIds();
    await expect(createRefund(runtime, operator(tenant.id), tenant.id, { payment_id: captured.id, amount: 1_000 }, { ...key, faults: crash })).rejects.toThrow('crashed');

    const done = await finishCrashedSaga(how, () => createRefund(runtime, operator(tenant.id), tenant.id, { payment_id: captured.id, amount: 1_000 }, key), { runtime, clock, sweepEarly: true });

    expect(done.status).toBe(201);
    expect(await f.balance(tenant, payer.cash_account_id)).toMatchObject({ posted: 10_000 - 3_000 + 1_000 });
    expect(await f.transactions(tenant, 'refund')).toHaveLength(1);
    expect((await storedEvents(f.deps, tenant.id, 'refund.completed')).map((e) => e.data.refund.payment_id)).toEqual([captured.id]);
  });
});
