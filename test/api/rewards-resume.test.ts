import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { ManualClock, systemClock, type Clock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { LedgerClient } from '../../shared/ledger-client/client';
import type { Transaction } from '../../shared/ledger-client/contract';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import type { WalletDeps } from '../../shared/wallet/deps';
import { payOrder } from '../../shared/wallet/orders/pay';
import { resolvePayment } from '../../shared/wallet/payments/capture';
import { createRefund } from '../../shared/wallet/orders/refunds';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { clientWithMarketing, inventoryOf } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { payMerchant, rewardsOf } from '../support/payments';
import { apiKeyPrincipals } from '../support/services';
import { balancesOf, createTenant, fundedUsers, type TenantOfTest } from '../support/tenants';
import { walletLedgerClient } from '../support/wallet';

/**
 * Rewards of a saga resumed after a crash between the ledger and the wallet, over HTTP: what the
 * first try planned (the cashback of the rules of then, the points it took back) is what the
 * retry or the sweeper posts and records, whatever changed in between. The crashed first try is
 * the service called in-process with a fault after the ledger step (as a dying Lambda would
 * leave it); everything after it is the client's HTTP calls and the platform's sweeper worker.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let ledgerId: string;
let apiKey: string;
let tenantOfTest: TenantOfTest;
const user = fundedUsers(() => tenantOfTest, { scopes: ['payments:write', 'payments:read'] });
let ledger: LedgerClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  // The test plays the sweeper's schedule: a crashed first try is dated past SWEEP_AFTER_MS, so
  // the platform's own minute tick, landing between the crash and the test's look at the stuck
  // order (a busy machine makes that window seconds long), would finish it first.
  await platform.scheduler.stop();
  base = platform.urls.public;
  ledger = walletLedgerClient(platform);
  const staff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, staff, 'Rewards resumed');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  tenantOfTest = { platform, api, tenantId, apiKey };
  const settings = await api('PUT', '/v1/rewards/settings', { token: apiKey, body: { points_commodity: 'PTS', conversion_rate: { points: 100, cash: 5 } } });
  expect(settings.status, settings.text).toBe(200);
  ledgerId = (await getTenantRecord(runtimeAt(systemClock), tenantId)).ledger_id;
});

afterAll(() => platform?.stop());

/** The wallet's services on the platform's table and ledger, on `clock`. */
function runtimeAt(clock: Clock): WalletDeps {
  return { client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock, ids: uuidv7, signer: () => Promise.reject(new Error('no signer here')), ledger: () => ledger };
}

/**
 * The runtime of a first try that crashes: for the sweeper, started long enough ago to be swept.
 * The tenant's unbound API keys are one caller: the HTTP retry with `apiKey` resumes its key.
 */
const crashedTry = (how: 'retry' | 'sweep') => runtimeAt(how === 'retry' ? systemClock : new ManualClock(new Date(Date.now() - SWEEP_AFTER_MS - 5_000)));
const crashed = (before: () => Promise<void> = async () => undefined) => ({
  afterLedger: async () => {
    await before();
    throw new Error('crashed after the ledger');
  },
});

const createdRule = async (clientId: string, body: Record<string, unknown>) => {
  const created = await api('POST', `/v1/clients/${clientId}/reward_rules`, { token: apiKey, body });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
};
const disable = async (clientId: string, ruleId: string) => expect((await api('POST', `/v1/clients/${clientId}/reward_rules/${ruleId}/disable`, { token: apiKey })).status).toBe(200);

/** The ledger's transactions of a type for a payment, with what each moved (its credit legs). */
async function ledgerMoves(type: string, paymentId: string) {
  const found: Transaction[] = (await ledger.listTransactions(ledgerId, { type, limit: 100 })).data.filter((txn) => txn.metadata.payment_id === paymentId);
  return found.map((txn) => ({ id: txn.id, amount: txn.legs.filter((leg) => leg.direction === 'credit').reduce((sum, leg) => sum + leg.amount, 0) }));
}

/** The user's reward history entries of a kind for a payment, as [amount, ledger transaction]. */
async function history(userId: string, kind: string, paymentId: string) {
  return ((await rewardsOf(api, userId, apiKey)).history as { kind: string; amount: number; payment_id: string; ledger_transaction_id: string }[])
    .filter((entry) => entry.kind === kind && entry.payment_id === paymentId)
    .map((entry) => ({ id: entry.ledger_transaction_id, amount: Math.abs(entry.amount) }));
}

/** An order of `quantity` units at 1,000 of a tracked variant (5 on hand) of the client, opened by the shopper. */
async function openTrackedOrder(clientId: string, buyer: { token: string }, quantity: number) {
  const offering = await api('POST', `/v1/clients/${clientId}/offerings`, {
    token: apiKey,
    body: { title: 'Mug', status: 'published', variants: [{ sku: `M-${uuidv7().slice(-10)}`, amount: 1_000, inventory: { on_hand: 5 } }] },
  });
  expect(offering.status, offering.text).toBe(201);
  const opened = await api('POST', '/v1/orders', { token: buyer.token, key: uuidv7(), body: { client_id: clientId, lines: [{ variant_id: offering.body.variants[0].id, quantity }] } });
  expect(opened.status, opened.text).toBe(201);
  return { id: opened.body.id as string, variant: { id: offering.body.variants[0].id as string, offeringId: offering.body.id as string } };
}


describe('an order paid again after a crash', () => {
  it('posts and records the cashback its first try planned, though the merchant replaced the rule in between (retried over HTTP)', async () => {
    const client = await clientWithMarketing(tenantOfTest, 5_000);
    const first = await createdRule(client.id, { kind: 'cashback', params: { bps: 1_000 } });
    const buyer = await user(10_000);
    const order = await openTrackedOrder(client.id, buyer, 2);
    const key = uuidv7();
    // The first try posts the payment and its 10% cashback (200); then, before its commit, the
    // merchant replaces the rule with a 20% one, and the process dies.
    const replace = async () => {
      await disable(client.id, first);
      await createdRule(client.id, { kind: 'cashback', params: { bps: 2_000 } });
    };
    await expect(payOrder(crashedTry('retry'), apiKeyPrincipals(TENANT_SCOPES)(tenantId), { tenantId }, order.id, { idempotencyKey: key, requestId: uuidv7(), faults: crashed(replace) })).rejects.toThrow('crashed');

    const paid = await api('POST', `/v1/orders/${order.id}/pay`, { token: apiKey, key });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', payment_id: expect.any(String) });
    const paymentId = paid.body.payment_id as string;
    expect((await api('GET', `/v1/orders/${order.id}`, { token: apiKey })).body.status).toBe('paid');
    expect((await api('GET', `/v1/payments/${paymentId}`, { token: apiKey })).body).toMatchObject({ status: 'captured', amount: 2_000 });
    expect(await ledgerMoves('payment', paymentId)).toHaveLength(1);
    // One cashback in the ledger, at the first rule's 10%, and the wallet's records say the same.
    const cashback = await ledgerMoves('cashback', paymentId);
    expect(cashback).toEqual([{ id: expect.any(String), amount: 200 }]);
    expect(await history(buyer.id, 'cashback', paymentId)).toEqual(cashback);
    expect((await rewardsOf(api, buyer.id, apiKey)).cashback_earned).toBe(200);
    expect((await balancesOf(api, buyer.id, apiKey)).available).toBe(10_000 - 2_000 + 200);
    expect(await inventoryOf(api, apiKey, client.id, order.variant)).toMatchObject({ on_hand: 3, reserved: 0 });
  });

  it('records the cashback its first try posted, though the rule was disabled, when the sweeper finishes it; a refund then claws it back', async () => {
    const client = await clientWithMarketing(tenantOfTest, 5_000);
    const only = await createdRule(client.id, { kind: 'cashback', params: { bps: 1_000 } });
    const buyer = await user(10_000);
    const order = await openTrackedOrder(client.id, buyer, 2);
    const key = uuidv7();
    await expect(payOrder(crashedTry('sweep'), apiKeyPrincipals(TENANT_SCOPES)(tenantId), { tenantId }, order.id, { idempotencyKey: key, requestId: uuidv7(), faults: crashed(() => disable(client.id, only)) })).rejects.toThrow('crashed');
    // Stuck `paying` (shown open), its stock held, until the sweeper takes it over.
    expect((await api('GET', `/v1/orders/${order.id}`, { token: apiKey })).body.status).toBe('open');
    expect(await inventoryOf(api, apiKey, client.id, order.variant)).toMatchObject({ on_hand: 5, reserved: 2 });

    await platform.scheduler.run('walletSweepOperations');
    const finished = (await api('GET', `/v1/orders/${order.id}`, { token: apiKey })).body;
    expect(finished.status).toBe('paid');
    const paymentId = finished.payment_id as string;
    const cashback = await ledgerMoves('cashback', paymentId);
    expect(cashback).toEqual([{ id: expect.any(String), amount: 200 }]);
    expect(await history(buyer.id, 'cashback', paymentId)).toEqual(cashback);
    expect(await inventoryOf(api, apiKey, client.id, order.variant)).toMatchObject({ on_hand: 3, reserved: 0 });
    // The client's late retry answers what the sweeper committed.
    const replay = await api('POST', `/v1/orders/${order.id}/pay`, { token: apiKey, key });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    // A whole refund takes the recorded cashback back.
    const refund = await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paymentId } });
    expect(refund.status, refund.text).toBe(201);
    const clawback = await ledgerMoves('cashback_clawback', paymentId);
    expect(clawback).toEqual([{ id: expect.any(String), amount: 200 }]);
    expect(await history(buyer.id, 'cashback_clawback', paymentId)).toEqual(clawback);
    expect((await rewardsOf(api, buyer.id, apiKey)).cashback_earned).toBe(0);
    expect((await balancesOf(api, buyer.id, apiKey)).available).toBe(10_000);
  });
});

describe('a capture finished after a crash', () => {
  it('posts and records the cashback of the rule it was asked under (retried over HTTP)', async () => {
    const client = await clientWithMarketing(tenantOfTest, 5_000);
    const first = await createdRule(client.id, { kind: 'cashback', params: { bps: 1_000 } });
    const buyer = await user(10_000);
    const authorized = await payMerchant(api, apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: 1_500, capture: false });
    expect(authorized.status, authorized.text).toBe(201);
    const key = uuidv7();
    const replace = async () => {
      await disable(client.id, first);
      await createdRule(client.id, { kind: 'cashback', params: { bps: 3_000 } });
    };
    await expect(resolvePayment(crashedTry('retry'), apiKeyPrincipals(TENANT_SCOPES)(tenantId), tenantId, authorized.body.id, 'capture', {}, { idempotencyKey: key, requestId: uuidv7(), faults: crashed(replace) })).rejects.toThrow('crashed');

    const captured = await api('POST', `/v1/payments/${authorized.body.id}/capture`, { token: apiKey, key, body: {} });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'captured', captured_amount: 1_500 });
    const cashback = await ledgerMoves('cashback', authorized.body.id);
    expect(cashback).toEqual([{ id: expect.any(String), amount: 150 }]);
    expect(await history(buyer.id, 'cashback', authorized.body.id)).toEqual(cashback);
    expect((await balancesOf(api, buyer.id, apiKey)).available).toBe(10_000 - 1_500 + 150);
  });
});

describe.each(['retry', 'sweep'] as const)('a refund finished by %s after a crash between the ledger and the wallet', (how) => {
  it('records the points clawback its first try posted, though the user holds none of them any more', async () => {
    const client = await clientWithMarketing(tenantOfTest, 0);
    await createdRule(client.id, { kind: 'accrual', params: { points: 1, per_amount: 1 } });
    const buyer = await user(1_000);
    const paid = await payMerchant(api, apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: 100 });
    expect(paid.status, paid.text).toBe(201);
    expect(await rewardsOf(api, buyer.id, apiKey)).toMatchObject({ points_balance: 100, points_earned: 100 });

    // The first try refunds it all and takes the 100 points back; then the process dies.
    const key = uuidv7();
    const body = { payment_id: paid.body.id, amount: 100 };
    await expect(createRefund(crashedTry(how), apiKeyPrincipals(TENANT_SCOPES)(tenantId), tenantId, body, { idempotencyKey: key, requestId: uuidv7(), faults: crashed() })).rejects.toThrow('crashed');
    expect((await rewardsOf(api, buyer.id, apiKey)).points_balance).toBe(0);

    if (how === 'sweep') await platform.scheduler.run('walletSweepOperations');
    const refund = await api('POST', '/v1/refunds', { token: apiKey, key, body });
    expect(refund.status, refund.text).toBe(201);
    if (how === 'sweep') expect(refund.headers.get('idempotent-replayed')).toBe('true');
    expect((await api('GET', `/v1/payments/${paid.body.id}`, { token: apiKey })).body).toMatchObject({ status: 'refunded', refunded_amount: 100 });
    // The ledger took 100 points back once; the wallet records exactly that.
    const clawback = await ledgerMoves('points_clawback', paid.body.id);
    expect(clawback).toEqual([{ id: expect.any(String), amount: 100 }]);
    expect(await history(buyer.id, 'points_clawback', paid.body.id)).toEqual(clawback);
    expect(await rewardsOf(api, buyer.id, apiKey)).toMatchObject({ points_balance: 0, points_earned: 0 });
    expect(await ledgerMoves('refund', paid.body.id)).toEqual([{ id: refund.body.ledger_transaction_id, amount: 100 }]);
  });
});
