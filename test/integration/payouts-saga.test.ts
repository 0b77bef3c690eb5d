import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { WalletDeps } from '../../shared/wallet/deps';
import { createMerchant, merchantRecord } from '../../shared/wallet/merchants/merchants';
import { startPayout } from '../../shared/wallet/payouts/create';
import { getPayoutRecord } from '../../shared/wallet/payouts/records';
import { sandboxRailRequest } from '../../shared/wallet/payouts/sandbox';
import { receiveRailWebhook } from '../../shared/wallet/payouts/settlement';
import { crashAfterLedger, tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';
import { apiKeyPrincipals, finishCrashedSaga, requestIds } from '../support/services';

/**
 * Crash safety of the payout sagas, as the other money paths have it: the process dies after the
 * ledger moved (or held) money and before the payout recorded it. The client's retry or, with
 * nobody retrying, the sweeper finishes it: one hold, one payout, one posting, one event. The
 * platform's queues are stopped, so the sandbox rail's own confirmations never arrive here.
 */

let f: TenancyFixture;
let clock: ManualClock;
let runtime: WalletDeps;

beforeAll(async () => {
  f = await tenancyFixture();
  await f.platform.queues.stop();
  clock = new ManualClock(new Date());
  runtime = f.walletRuntime(clock);
});
afterAll(() => f?.stop());

const operator = apiKeyPrincipals(['merchants:write'], { sandbox: true });

/** A merchant whose settlement holds 5,000 (the tenant charges no payout fee). */
async function merchantWithSettlement() {
  const tenant = await f.tenant();
  const merchant = await createMerchant(runtime, tenant.id, { name: 'Shop' });
  const settlement = (await merchantRecord(runtime, tenant.id, merchant.id)).settlement_account_id;
  await f.fund(tenant, settlement, 5_000, 'payment');
  return { tenant, merchant, settlement };
}

describe.each(['retry', 'sweep'] as const)('a crash between the ledger and the payout, finished by %s', (how) => {
  it('holds once and creates one payout', async () => {
    const { tenant, merchant, settlement } = await merchantWithSettlement();
    const input = { merchant_id: merchant.id, amount: 1_200, currency: 'USD' };
    const key = requestIds();
    await expect(startPayout(runtime, tenant.id, operator(tenant.id), input, { ...key, faults: crashAfterLedger })).rejects.toThrow('crashed');
    expect(await f.balance(tenant, settlement)).toMatchObject({ posted: 5_000, available: 3_800, pending_debits: 1_200 });

    const done = await finishCrashedSaga(how, () => startPayout(runtime, tenant.id, operator(tenant.id), input, key), { runtime, clock });

    expect(done.status).toBe(201);
    const payout = JSON.parse(done.body) as { id: string; status: string };
    expect(payout.status).toBe('pending');
    expect((await getPayoutRecord(runtime, tenant.id, payout.id)).pending_id).toEqual(expect.any(String));
    expect(await f.balance(tenant, settlement)).toMatchObject({ posted: 5_000, available: 3_800, pending_debits: 1_200 });
  });

  it('pays out once when the confirmation crashed after the posting', async () => {
    const { tenant, merchant, settlement } = await merchantWithSettlement();
    const created = JSON.parse((await startPayout(runtime, tenant.id, operator(tenant.id), { merchant_id: merchant.id, amount: 700, currency: 'USD' }, requestIds())).body) as { id: string; rail_ref: string };
    const confirmation = () =>
      sandboxRailRequest({ id: `evt_${created.id}`, type: 'payout.paid', payout_id: created.id, rail_ref: created.rail_ref, failure_reason: null }, process.env.SANDBOX_PROCESSOR_SECRET!, Math.floor(clock.now().getTime() / 1000));
    const receive = (faults = {}) => receiveRailWebhook(runtime, { rail: 'sandbox', rawBody: confirmation().body, headers: confirmation().headers, requestId: uuidv7() }, { faults });

    await expect(receive(crashAfterLedger)).rejects.toThrow('crashed');
    expect(await f.balance(tenant, settlement)).toMatchObject({ posted: 4_300, pending_debits: 0 });
    expect((await getPayoutRecord(runtime, tenant.id, created.id)).status).toBe('pending');

    const done = await finishCrashedSaga(how, () => receive(), { runtime, clock });

    expect(JSON.parse(done.body)).toMatchObject({ payout_id: created.id, status: 'paid' });
    expect(await f.balance(tenant, settlement)).toMatchObject({ posted: 4_300, available: 4_300, pending_debits: 0 });
    const transactions = (await f.ledger.listTransactions(tenant.ledger_id, { limit: 100, type: 'payout' })).data;
    expect(transactions).toHaveLength(1);
    expect((await storedEvents(f.deps, tenant.id, 'payout.paid')).map((e) => e.data.payout.id)).toEqual([created.id]);
  });
});

describe('two confirmations racing', () => {
  it('end the payout once: a paid and a failed one cannot both move money', async () => {
    const { tenant, merchant, settlement } = await merchantWithSettlement();
    const created = JSON.parse((await startPayout(runtime, tenant.id, operator(tenant.id), { merchant_id: merchant.id, amount: 1_000, currency: 'USD' }, requestIds())).body) as { id: string; rail_ref: string };
    const send = (type: 'payout.paid' | 'payout.failed') => {
      const request = sandboxRailRequest(
        { id: `evt_${uuidv7()}`, type, payout_id: created.id, rail_ref: created.rail_ref, failure_reason: type === 'payout.failed' ? 'bounced' : null },
        process.env.SANDBOX_PROCESSOR_SECRET!,
        Math.floor(clock.now().getTime() / 1000),
      );
      return receiveRailWebhook(runtime, { rail: 'sandbox', rawBody: request.body, headers: request.headers, requestId: uuidv7() }).then(
        (outcome) => outcome.status,
        (error: { code?: string }) => error.code ?? 'error',
      );
    };

    const answers = await Promise.all([send('payout.paid'), send('payout.failed'), send('payout.paid'), send('payout.failed')]);

    const payout = await getPayoutRecord(runtime, tenant.id, created.id);
    expect(['paid', 'failed']).toContain(payout.status);
    expect(answers.every((answer) => answer === 200 || answer === 409 || answer === 'conflict' || answer === 'idempotency_in_flight')).toBe(true);
    const posted = payout.status === 'paid' ? 4_000 : 5_000;
    expect(await f.balance(tenant, settlement)).toMatchObject({ posted, available: posted, pending_debits: 0 });
    expect(await storedEvents(f.deps, tenant.id, payout.status === 'paid' ? 'payout.paid' : 'payout.failed')).toHaveLength(1);
    expect(await storedEvents(f.deps, tenant.id, payout.status === 'paid' ? 'payout.failed' : 'payout.paid')).toHaveLength(0);
  });
});
