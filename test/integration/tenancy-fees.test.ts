import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../shared/kernel/ids';
import { listAuditLog } from '../../shared/wallet/tenancy/audit';
import { getFeePlan, setFeePlan } from '../../shared/wallet/tenancy/fee-plan';
import { type FeePlanChange } from '../../shared/wallet/tenancy/fee-schemas';
import { ledgerSummary } from '../../shared/wallet/tenancy/summary';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';
import { refusal } from '../support/services';

let f: TenancyFixture;

beforeAll(async () => {
  f = await tenancyFixture();
});
afterAll(() => f?.stop());

describe('fee plans', () => {
  it('replaces a named path whole, leaves the others, and audits before and after with the event', async () => {
    const tenant = await f.tenant();
    await setFeePlan(f.deps, tenant.id, { payment: { bps: 250, flat: 30, min_fee: 50, max_fee: 2_000 }, p2p: { bps: 10, flat: 0, min_fee: 0 } }, f.context());
    const plan = await setFeePlan(f.deps, tenant.id, { payment: { bps: 100, flat: 0, min_fee: 0, max_fee: 900 } }, f.context());
    expect(plan.fees.payment).toEqual({ bps: 100, flat: 0, min_fee: 0, max_fee: 900 });
    expect(plan.fees.p2p).toEqual({ bps: 10, flat: 0, min_fee: 0 });
    expect(plan.fees.topup).toEqual({ bps: 0, flat: 0, min_fee: 0 });
    expect(plan.commission_mode).toBe('deduct');
    expect(await getFeePlan(f.deps, tenant.id)).toEqual(plan);

    const audit = (await listAuditLog(f.deps, tenant.id, { limit: 10 })).data.filter((r) => r.action === 'fee_plan.set');
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({ actor: { type: 'api_key', id: f.operator.id }, target: { type: 'fee_plan', id: tenant.id } });
    expect((audit[0]!.before as any).fees.payment).toEqual({ bps: 250, flat: 30, min_fee: 50, max_fee: 2_000 });
    expect(audit[0]!.after).toEqual(plan);

    const events = await storedEvents(f.deps, tenant.id);
    expect(events.map((event) => event.type)).toEqual(['fee_plan.set', 'fee_plan.set']);
    // The event's payload omits max_fee where there is no cap, as every response does.
    for (const event of events) expect(event.data.fee_plan.fees.p2p).not.toHaveProperty('max_fee');
  });

  it('clears the cap when max_fee is omitted or null, and sets the commission mode alone', async () => {
    const tenant = await f.tenant();
    await setFeePlan(f.deps, tenant.id, { payout: { bps: 0, flat: 100, min_fee: 0, max_fee: 100 } }, f.context());
    expect((await setFeePlan(f.deps, tenant.id, { payout: { bps: 0, flat: 100, min_fee: 0 } }, f.context())).fees.payout).not.toHaveProperty('max_fee');
    await setFeePlan(f.deps, tenant.id, { payout: { bps: 0, flat: 100, min_fee: 0, max_fee: 100 } }, f.context());
    expect((await setFeePlan(f.deps, tenant.id, { payout: { bps: 0, flat: 100, min_fee: 0, max_fee: null } }, f.context())).fees.payout).not.toHaveProperty('max_fee');
    const plan = await setFeePlan(f.deps, tenant.id, { commission_mode: 'add' }, f.context());
    expect(plan.commission_mode).toBe('add');
    expect(plan.fees.payout).toEqual({ bps: 0, flat: 100, min_fee: 0 });
  });

  it('refuses out-of-range and inconsistent rules with invalid_request and changes nothing', async () => {
    const tenant = await f.tenant();
    const bad: unknown[] = [
      { payment: { bps: 10_001, flat: 0, min_fee: 0 } },
      { payment: { bps: -1, flat: 0, min_fee: 0 } },
      { payment: { bps: 1.5, flat: 0, min_fee: 0 } },
      { payment: { bps: 0, flat: -1, min_fee: 0 } },
      { payment: { bps: 0, flat: 0, min_fee: -5 } },
      { payment: { bps: 0, flat: 0, min_fee: 0, max_fee: -1 } },
      { payment: { bps: 0, flat: Number.MAX_SAFE_INTEGER + 1, min_fee: 0 } },
      { payment: { bps: 0, flat: 0, min_fee: 500, max_fee: 499 } },
      { payment: { bps: 0, flat: 0 } },
      { payment: { bps: 0, flat: 0, min_fee: 0, extra: 1 } },
      { shipping: { bps: 0, flat: 0, min_fee: 0 } },
      { commission_mode: 'split' },
      {},
    ];
    for (const change of bad) {
      expect((await refusal(setFeePlan(f.deps, tenant.id, change as FeePlanChange, f.context()))).code, JSON.stringify(change)).toBe('invalid_request');
    }
    expect((await listAuditLog(f.deps, tenant.id, { limit: 10 })).data.map((r) => r.action)).toEqual(['tenant.create']);
  });

  it('lands concurrent changes to different paths without losing either', async () => {
    const tenant = await f.tenant();
    const changes: FeePlanChange[] = [
      { payment: { bps: 1, flat: 0, min_fee: 0 } },
      { subscription: { bps: 2, flat: 0, min_fee: 0 } },
      { commission: { bps: 3, flat: 0, min_fee: 0 } },
      { p2p: { bps: 4, flat: 0, min_fee: 0 } },
    ];
    await Promise.all(changes.map((change) => setFeePlan(f.deps, tenant.id, change, f.context())));
    const plan = await getFeePlan(f.deps, tenant.id);
    expect([plan.fees.payment.bps, plan.fees.subscription.bps, plan.fees.commission.bps, plan.fees.p2p.bps]).toEqual([1, 2, 3, 4]);
    expect((await listAuditLog(f.deps, tenant.id, { limit: 10 })).data.filter((r) => r.action === 'fee_plan.set')).toHaveLength(4);
  });

  it('refuses an unknown tenant with tenant_not_found', async () => {
    expect((await refusal(setFeePlan(f.deps, uuidv7(), { commission_mode: 'add' }, f.context()))).code).toBe('tenant_not_found');
    expect((await refusal(getFeePlan(f.deps, uuidv7()))).code).toBe('tenant_not_found');
  });
});

describe('ledger summary', () => {
  it('shows balances by owner type, purpose and commodity with the fee plan', async () => {
    const tenant = await f.tenant('Summary', 'JPY');
    const [alice, bob] = [await f.user(tenant.id), await f.user(tenant.id)];
    for (const [user, amount] of [[alice, 500], [bob, 250]] as const) {
      await f.ledger.post(
        tenant.ledger_id,
        { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount, commodity: 'JPY' }, { account_id: user.cash_account_id, direction: 'credit', amount, commodity: 'JPY' }] },
        uuidv7(),
      );
    }
    await setFeePlan(f.deps, tenant.id, { topup: { bps: 50, flat: 0, min_fee: 1 } }, f.context());
    const summary = await ledgerSummary(f.deps, tenant.id);
    expect(summary).toEqual({
      currency: 'JPY',
      rows: [
        { owner_type: 'tenant', purpose: 'funding', commodity: 'JPY', balance: -750, accounts: 1 },
        { owner_type: 'tenant', purpose: 'revenue', commodity: 'JPY', balance: 0, accounts: 1 },
        { owner_type: 'user', purpose: 'cash', commodity: 'JPY', balance: 750, accounts: 2 },
      ],
      fee_plan: await getFeePlan(f.deps, tenant.id),
    });
  });
});
