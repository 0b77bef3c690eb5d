import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../shared/http/outcome';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { WalletDeps } from '../../shared/wallet/deps';
import { resolvePayment } from '../../shared/wallet/payments/capture';
import { createMerchant } from '../../shared/wallet/merchants/merchants';
import { createPayment } from '../../shared/wallet/payments/payments';
import { createRefund } from '../../shared/wallet/orders/refunds';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';
import type { TenantRecord } from '../../shared/wallet/tenancy/tenants';
import type { UserRecord } from '../../shared/wallet/tenancy/users';
import { crashAfterLedger, tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';

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
const operator = (tenantId: string): Principal => ({ kind: 'api_key', id: `key-${uuidv7()}`, tenantId, scopes: new Set(['payments:write', 'refunds:write']) });
const ids = () => ({ idempotencyKey: uuidv7(), requestId: uuidv7() });

async function world() {
  const tenant = await f.tenant();
  const payer = await f.user(tenant.id);
  await f.ledger.post(
    tenant.ledger_id,
    { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount: 10_000, commodity: 'USD' }, { account_id: payer.cash_account_id, direction: 'credit', amount: 10_000, commodity: 'USD' }] },
    uuidv7(),
  );
  const merchant = await createMerchant(runtime, tenant.id, { name: 'Shop' });
  return { tenant, payer, merchant };
}

const balance = async (tenant: TenantRecord, user: UserRecord) => (await f.ledger.getAccount(tenant.ledger_id, user.cash_account_id)).balance;

async function eventsOf(tenantId: string, type: string) {
  return storedEvents(f.deps, tenantId, type);
}

async function ledgerTransactions(tenant: TenantRecord, type: string) {
  return (await f.ledger.listTransactions(tenant.ledger_id, { limit: 100 })).data.filter((t) => t.type === type);
}

/** Finishes by the client's retry, or (nobody retrying) by the sweeper once the saga is old enough. */
async function recover(how: 'retry' | 'sweep', again: () => Promise<Outcome>): Promise<Outcome> {
  if (how === 'retry') return again();
  await sweepOperations(runtime);
  clock.advance(SWEEP_AFTER_MS + 1_000);
  expect(await sweepOperations(runtime)).toBeGreaterThanOrEqual(1);
  const replay = await again();
  expect(replay.replayed).toBe(true);
  return replay;
}

describe.each(['retry', 'sweep'] as const)('a crash between the ledger and the wallet, finished by %s', (how) => {
  it('authorizes once', async () => {
    const { tenant, payer, merchant } = await world();
    const input = { user_id: payer.id, merchant_id: merchant.id, amount: 2_500, currency: 'USD', capture: false };
    const key = ids();
    await expect(createPayment(runtime, operator(tenant.id), tenant.id, input, { ...key, faults: crash })).rejects.toThrow('crashed');
    expect(await balance(tenant, payer)).toMatchObject({ available: 7_500, pending_debits: 2_500 });

    const done = await recover(how, () => createPayment(runtime, operator(tenant.id), tenant.id, input, key));

    expect(done.status).toBe(201);
    const payment = JSON.parse(done.body) as { id: string; status: string };
    expect(payment.status).toBe('authorized');
    expect(await balance(tenant, payer)).toMatchObject({ available: 7_500, pending_debits: 2_500 });
    expect((await eventsOf(tenant.id, 'payment.authorized')).map((e) => e.data.payment.id)).toEqual([payment.id]);
  });

  it('captures once', async () => {
    const { tenant, payer, merchant } = await world();
    const authorized = JSON.parse((await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: payer.id, merchant_id: merchant.id, amount: 2_000, currency: 'USD', capture: false }, ids())).body) as { id: string };
    const key = ids();
    await expect(resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'capture', { amount: 1_500 }, { ...key, faults: crash })).rejects.toThrow('crashed');

    const done = await recover(how, () => resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'capture', { amount: 1_500 }, key));

    expect(JSON.parse(done.body)).toMatchObject({ status: 'captured', captured_amount: 1_500 });
    expect(await balance(tenant, payer)).toMatchObject({ posted: 8_500, pending_debits: 0 });
    expect(await ledgerTransactions(tenant, 'payment_capture')).toHaveLength(1);
    expect((await eventsOf(tenant.id, 'payment.captured')).map((e) => e.data.payment.id)).toEqual([authorized.id]);
  });

  it('voids once', async () => {
    const { tenant, payer, merchant } = await world();
    const authorized = JSON.parse((await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: payer.id, merchant_id: merchant.id, amount: 900, currency: 'USD', capture: false }, ids())).body) as { id: string };
    const key = ids();
    await expect(resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'void', {}, { ...key, faults: crash })).rejects.toThrow('crashed');

    const done = await recover(how, () => resolvePayment(runtime, operator(tenant.id), tenant.id, authorized.id, 'void', {}, key));

    expect(JSON.parse(done.body)).toMatchObject({ status: 'voided' });
    expect(await balance(tenant, payer)).toMatchObject({ available: 10_000, pending_debits: 0 });
    expect((await eventsOf(tenant.id, 'payment.voided')).map((e) => e.data.payment.id)).toEqual([authorized.id]);
  });

  it('refunds once', async () => {
    const { tenant, payer, merchant } = await world();
    const captured = JSON.parse((await createPayment(runtime, operator(tenant.id), tenant.id, { user_id: payer.id, merchant_id: merchant.id, amount: 3_000, currency: 'USD' }, ids())).body) as { id: string };
    const key = ids();
    await expect(createRefund(runtime, operator(tenant.id), tenant.id, { payment_id: captured.id, amount: 1_000 }, { ...key, faults: crash })).rejects.toThrow('crashed');

    const done = await recover(how, () => createRefund(runtime, operator(tenant.id), tenant.id, { payment_id: captured.id, amount: 1_000 }, key));

    expect(done.status).toBe(201);
    expect(await balance(tenant, payer)).toMatchObject({ posted: 10_000 - 3_000 + 1_000 });
    expect(await ledgerTransactions(tenant, 'refund')).toHaveLength(1);
    expect((await eventsOf(tenant.id, 'refund.completed')).map((e) => e.data.refund.payment_id)).toEqual([captured.id]);
  });
});
