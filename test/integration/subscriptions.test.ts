import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import { AppError } from '../../shared/kernel/errors';
import { uuidv7 } from '../../shared/kernel/ids';
import { changeClient, createClient, readClient } from '../../shared/wallet/catalog/clients';
import { createOffering } from '../../shared/wallet/catalog/offerings';
import type { WalletDeps } from '../../shared/wallet/deps';
import { createMerchant } from '../../shared/wallet/merchants/merchants';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';
import { chargeDueSubscriptions } from '../../shared/wallet/subscriptions/billing';
import { cancelSubscription } from '../../shared/wallet/subscriptions/manage';
import { subscriptionRecord } from '../../shared/wallet/subscriptions/records';
import { subscribe } from '../../shared/wallet/subscriptions/subscribe';
import { crashAfterLedger, tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { requestIds } from '../support/services';
import type { TenantRecord } from '../../shared/wallet/tenancy/records';

/**
 * Crash safety of subscription charges on DynamoDB Local and the real ledger: the process dies
 * after the ledger posted a charge and before the subscription recorded it. The first period's
 * saga is finished by the sweeper; a later period by the next billing run, under the same ledger
 * key (the one its claim pinned). Either way: one posting, one charge, one event.
 */

let f: TenancyFixture;
let clock: ManualClock;
let runtime: WalletDeps;

beforeAll(async () => {
  f = await tenancyFixture();
  clock = new ManualClock(new Date('2026-03-01T09:00:00.000Z'));
  runtime = f.walletRuntime(clock);
});
afterAll(() => f?.stop());

const crash = crashAfterLedger;

async function subscriberAndPlan() {
  const tenant = await f.tenant();
  const payer = await f.user(tenant.id);
  await f.fund(tenant, payer.cash_account_id, 10_000);
  const operator: Principal = { kind: 'api_key', id: `key-${uuidv7()}`, tenantId: tenant.id, scopes: new Set(['clients:manage']) };
  const merchant = await createMerchant(runtime, tenant.id, { name: 'Box' });
  const created = await createClient(runtime, operator, tenant.id, { merchant_id: merchant.id, org_alias: `box-${uuidv7().slice(-10)}`, display_name: 'Box', category: 'food' }, uuidv7());
  await changeClient(runtime, operator, { tenantId: tenant.id }, created.id, 'approve', uuidv7());
  const plan = await createOffering(runtime, operator, await readClient(runtime, tenant.id, created.id), { kind: 'plan', title: 'Box', amount: 700, interval: 'monthly', status: 'published' });
  const consumer: Principal = { kind: 'user_token', id: payer.id, userId: payer.id, tenantId: tenant.id, scopes: new Set(['subscriptions:write']) };
  return { tenant, payer, plan, consumer };
}

/** The subscription's charges: its postings in the tenant's ledger. */
const chargesOf = async (tenant: TenantRecord, subscriptionId: string) => (await f.transactions(tenant, 'subscription')).filter((t) => t.metadata.subscription_id === subscriptionId);

describe('a crash between a charge\'s posting and the subscription\'s commit', () => {
  it('at signup: the sweeper finishes the saga, one posting and one charged period', async () => {
    const w = await subscriberAndPlan();
    const key = requestIds();
    await expect(subscribe(runtime, w.consumer, w.plan.id, { ...key, faults: crash })).rejects.toThrow('crashed after the ledger');
    clock.advance(SWEEP_AFTER_MS + 1_000);
    expect(await sweepOperations(runtime)).toBeGreaterThanOrEqual(1);
    const replay = await subscribe(runtime, w.consumer, w.plan.id, key);
    expect(replay.replayed).toBe(true);
    const id = JSON.parse(replay.body).id as string;
    expect(await chargesOf(w.tenant, id)).toHaveLength(1);
    expect((await subscriptionRecord(runtime, { tenantId: w.tenant.id }, id)).periods_charged).toBe(1);
    // Out of the way of the next test's billing runs (they share the table).
    await cancelSubscription(runtime, { tenantId: w.tenant.id }, id, false);
  });

  it('in a billing run: the next run posts under the same key and commits once', async () => {
    const w = await subscriberAndPlan();
    const created = await subscribe(runtime, w.consumer, w.plan.id, requestIds());
    const id = JSON.parse(created.body).id as string;
    clock.advance(31 * 86_400_000);
    await expect(chargeDueSubscriptions(runtime, crash)).rejects.toThrow('crashed after the ledger');
    expect(await chargesOf(w.tenant, id)).toHaveLength(2);
    expect((await subscriptionRecord(runtime, { tenantId: w.tenant.id }, id)).periods_charged).toBe(1);
    const counts = await chargeDueSubscriptions(runtime);
    expect(counts.charged).toBe(1);
    expect(await chargesOf(w.tenant, id)).toHaveLength(2);
    expect((await subscriptionRecord(runtime, { tenantId: w.tenant.id }, id)).periods_charged).toBe(2);
    expect(await chargeDueSubscriptions(runtime)).toMatchObject({ charged: 0 });
  });
});

describe('a claim left before the posting', () => {
  it('the ledger unreachable: the claim stays on the subscription, and the next run posts under its key once', async () => {
    const w = await subscriberAndPlan();
    const created = await subscribe(runtime, w.consumer, w.plan.id, requestIds());
    const id = JSON.parse(created.body).id as string;
    clock.advance(31 * 86_400_000);
    const unreachable: WalletDeps = { ...runtime, ledger: () => ({ ...runtime.ledger(), post: () => Promise.reject(new AppError('service_unavailable', 'The ledger did not answer.')) }) };
    await chargeDueSubscriptions(unreachable);
    const held = await subscriptionRecord(runtime, { tenantId: w.tenant.id }, id);
    expect(held).toMatchObject({ periods_charged: 1, charging: { period: 1, try: 0 } });
    expect(await chargesOf(w.tenant, id)).toHaveLength(1);

    await chargeDueSubscriptions(runtime);
    const after = await subscriptionRecord(runtime, { tenantId: w.tenant.id }, id);
    expect(after).toMatchObject({ periods_charged: 2, status: 'active' });
    expect(after.charging).toBeUndefined();
    expect(await chargesOf(w.tenant, id)).toHaveLength(2);
  });
});

describe('a frozen payer account', () => {
  it('pauses the subscription at its next charge, with reason account_frozen, and posts nothing', async () => {
    const w = await subscriberAndPlan();
    const created = await subscribe(runtime, w.consumer, w.plan.id, requestIds());
    const id = JSON.parse(created.body).id as string;
    await f.ledger.updateAccount(w.tenant.ledger_id, w.payer.cash_account_id, { status: 'frozen' });
    clock.advance(31 * 86_400_000);
    // Other tests' subscriptions share the table: only this one's outcome is asserted.
    expect((await chargeDueSubscriptions(runtime)).paused).toBe(1);
    expect(await subscriptionRecord(runtime, { tenantId: w.tenant.id }, id)).toMatchObject({ status: 'paused', pause_reason: 'account_frozen', next_charge_at: null });
    expect(await chargesOf(w.tenant, id)).toHaveLength(1);
  });
});
