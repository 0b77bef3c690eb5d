import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { LedgerClient } from '../../shared/ledger-client/client';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { clientWithMarketing } from '../support/catalog';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { payMerchant, rewardsOf } from '../support/payments';
import { createTenant, fundedUsers, type TenantOfTest } from '../support/tenants';
import { walletLedgerClient } from '../support/wallet';

/**
 * Rewards over HTTP: merchant-funded cashback and tenant points earned in the capture of a
 * payment (and of an order's payment), capped by ledger limit claims, clawed back in proportion
 * on refunds, and points converted to cash in one posting of two balanced pairs.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let apiKey: string;
let tenantOfTest: TenantOfTest;
const user = fundedUsers(() => tenantOfTest);
let ledger: LedgerClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  ledger = walletLedgerClient(platform);
  const staff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, staff, 'Rewards');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  tenantOfTest = { platform, api, tenantId, apiKey };
  const settings = await api('PUT', '/v1/rewards/settings', { token: apiKey, body: { points_commodity: 'PTS', conversion_rate: { points: 100, cash: 5 } } });
  expect(settings.status, settings.text).toBe(200);
});

afterAll(() => platform?.stop());

const rule = (clientId: string, body: Record<string, unknown>) => api('POST', `/v1/clients/${clientId}/reward_rules`, { token: apiKey, body });
const events = async (type: string) => (await api('GET', '/v1/webhook_events?limit=100', { token: apiKey })).body.data.filter((e: { type: string }) => e.type === type);

describe('reward rules', () => {
  it('hold one live rule per slot; a disabled rule frees it and the next gets the next version', async () => {
    const client = await clientWithMarketing(tenantOfTest, 0);
    const first = await rule(client.id, { kind: 'cashback', params: { bps: 100 } });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ kind: 'cashback', offering_id: null, version: 1, status: 'active', params: { bps: 100, flat: 0 } });
    expectProblem(await rule(client.id, { kind: 'cashback', params: { bps: 200 } }), 'rule_exists');
    expect((await rule(client.id, { kind: 'accrual', params: { points: 1, per_amount: 100 } })).status).toBe(201);
    expectProblem(await rule(client.id, { kind: 'cashback', params: { bps: 0 } }), 'invalid_request');
    expectProblem(await rule(client.id, { kind: 'accrual', params: { points: 1, per_amount: 100 }, caps: { per_payment: 5 } }), 'invalid_request');
    expectProblem(await rule(client.id, { kind: 'loyalty', params: {} }), 'invalid_request');
    const disabled = await api('POST', `/v1/clients/${client.id}/reward_rules/${first.body.id}/disable`, { token: apiKey });
    expect(disabled.body).toMatchObject({ status: 'disabled', disabled_at: expect.any(String) });
    const next = await rule(client.id, { kind: 'cashback', params: { bps: 200 } });
    expect(next.body.version).toBe(2);
    const listed = await api('GET', `/v1/clients/${client.id}/reward_rules`, { token: apiKey });
    expect(listed.body.data).toHaveLength(3);
  });
});

describe('earning', () => {
  it('pays cashback from the marketing funds and accrues points in the capture, both visible in the user\'s rewards', async () => {
    const client = await clientWithMarketing(tenantOfTest, 5_000);
    await rule(client.id, { kind: 'cashback', params: { bps: 1_000, flat: 5 } });
    await rule(client.id, { kind: 'accrual', params: { points: 3, per_amount: 100 } });
    const buyer = await user(10_000);
    const paid = await payMerchant(api, apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: 1_250 });
    expect(paid.status, paid.text).toBe(201);
    const rewards = await rewardsOf(api, buyer.id, apiKey);
    // 1250 × 10% + 5 = 130 cashback; 12 whole hundreds × 3 = 36 points.
    expect(rewards).toMatchObject({ points_commodity: 'PTS', points_balance: 36, cashback_earned: 130, points_earned: 36 });
    expect(rewards.history.map((h: { kind: string; amount: number }) => [h.kind, h.amount]).sort()).toEqual([['cashback', 130], ['points', 36]]);
    expect((await api('GET', `/v1/users/${buyer.id}/balances`, { token: apiKey })).body.available).toBe(10_000 - 1_250 + 130);
    expect((await events('cashback.granted')).some((e: { data: { cashback: { payment_id: string } } }) => e.data.cashback.payment_id === paid.body.id)).toBe(true);
    expect((await events('points.accrued')).some((e: { data: { points: { payment_id: string; points: number } } }) => e.data.points.payment_id === paid.body.id && e.data.points.points === 36)).toBe(true);
  });

  it('grants nothing when the marketing account is empty, and the payment is captured all the same', async () => {
    const client = await clientWithMarketing(tenantOfTest, 0);
    await rule(client.id, { kind: 'cashback', params: { bps: 1_000 } });
    const buyer = await user(1_000);
    const paid = await payMerchant(api, apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: 1_000 });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.status).toBe('captured');
    expect((await rewardsOf(api, buyer.id, apiKey)).cashback_earned).toBe(0);
    expect((await events('cashback.granted')).some((e: { data: { cashback: { payment_id: string } } }) => e.data.cashback.payment_id === paid.body.id)).toBe(false);
  });

  it('lets an offering\'s rule override the client\'s common one on that offering\'s lines', async () => {
    const client = await clientWithMarketing(tenantOfTest, 5_000);
    const offering = async (title: string) =>
      (await api('POST', `/v1/clients/${client.id}/offerings`, { token: apiKey, body: { title, status: 'published', variants: [{ sku: `S-${uuidv7().slice(-10)}`, amount: 1_000, inventory: { on_hand: 5 } }] } })).body;
    const [special, plain] = [await offering('Special'), await offering('Plain')];
    await rule(client.id, { kind: 'cashback', params: { bps: 100 } });
    expect((await rule(client.id, { kind: 'cashback', offering_id: special.id, params: { bps: 2_000 } })).status).toBe(201);
    const buyer = await user(5_000);
    const token = await userTokenFor(platform, apiKey, buyer.externalId, ['payments:write', 'payments:read']);
    const order = await api('POST', '/v1/orders', { token, key: uuidv7(), body: { client_id: client.id, lines: [{ variant_id: special.variants[0].id, quantity: 1 }, { variant_id: plain.variants[0].id, quantity: 1 }] } });
    expect(order.status, order.text).toBe(201);
    expect((await api('POST', `/v1/orders/${order.body.id}/pay`, { token, key: uuidv7() })).status).toBe(200);
    // 20% of 1000 on the special line, 1% of 1000 on the plain one.
    expect((await rewardsOf(api, buyer.id, apiKey)).cashback_earned).toBe(210);
  });

  it('never passes a per-user daily cap, even with 50 captures at once', async () => {
    const client = await clientWithMarketing(tenantOfTest, 10_000);
    await rule(client.id, { kind: 'cashback', params: { bps: 1_000 }, caps: { per_user_per_day: 500, per_payment: 80 } });
    const buyer = await user(100_000);
    const results = await Promise.all(Array.from({ length: 50 }, () => payMerchant(api, apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: 1_000 })));
    for (const result of results) expect(result.status, result.text).toBe(201);
    // 10% of 1000 is 100, capped at 80 a payment; the day's 500 allows six grants (480), not seven.
    expect((await rewardsOf(api, buyer.id, apiKey)).cashback_earned).toBe(480);
  });
});

describe('clawback and conversion', () => {
  it('takes back in proportion on a refund, converts points to cash in one exchange posting, and every commodity nets to zero', async () => {
    const client = await clientWithMarketing(tenantOfTest, 5_000);
    await rule(client.id, { kind: 'cashback', params: { bps: 1_000 } });
    await rule(client.id, { kind: 'accrual', params: { points: 1, per_amount: 1 } });
    const buyer = await user(10_000);
    const paid = await payMerchant(api, apiKey, { userId: buyer.id, merchantId: client.merchantId, amount: 2_000 });
    expect(await rewardsOf(api, buyer.id, apiKey)).toMatchObject({ cashback_earned: 200, points_balance: 2_000 });

    const refund = await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paid.body.id, amount: 500 } });
    expect(refund.status, refund.text).toBe(201);
    // A quarter refunded: a quarter of each reward taken back.
    expect(await rewardsOf(api, buyer.id, apiKey)).toMatchObject({ cashback_earned: 150, points_balance: 1_500 });

    const token = await userTokenFor(platform, apiKey, buyer.externalId, ['rewards:convert', 'rewards:read']);
    const key = uuidv7();
    const converted = await api('POST', `/v1/users/${buyer.id}/rewards/convert`, { token, key, body: { points: 1_000 } });
    expect(converted.status, converted.text).toBe(201);
    expect(converted.body).toMatchObject({ points: 1_000, cash: 50, rate: { points: 100, cash: 5 }, points_commodity: 'PTS', currency: 'USD' });
    expect((await api('POST', `/v1/users/${buyer.id}/rewards/convert`, { token, key, body: { points: 1_000 } })).text).toBe(converted.text);
    expectProblem(await api('POST', `/v1/users/${buyer.id}/rewards/convert`, { token, key: uuidv7(), body: { points: 5_000 } }), 'insufficient_funds');
    expect((await rewardsOf(api, buyer.id, apiKey)).points_balance).toBe(500);
    const event = (await events('points.converted')).find((e: { data: { conversion: { id: string } } }) => e.data.conversion.id === converted.body.id);
    expect(event.data.conversion.rate).toEqual({ points: 100, cash: 5 });

    const txn = await ledger.getTransaction(await ledgerIdOf(), converted.body.ledger_transaction_id);
    expect(txn.metadata).toMatchObject({ rate_points: '100', rate_cash: '5', points_commodity: 'PTS' });
    expect(new Set(txn.legs.map((l: { commodity: string }) => l.commodity))).toEqual(new Set(['PTS', 'USD']));
    const rollup = await ledger.rollup(await ledgerIdOf());
    expect(rollup.balanced).toBe(true);
    for (const commodity of rollup.commodities) expect(commodity.total, commodity.commodity).toBe(0);
    expect(rollup.commodities.map((c: { commodity: string }) => c.commodity).sort()).toEqual(['PTS', 'USD']);
  });
});

async function ledgerIdOf(): Promise<string> {
  const { getTenantRecord } = await import('../../shared/wallet/tenancy/tenants');
  const { localDocumentClient } = await import('../../local/dynamodb');
  return (await getTenantRecord({ client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7 }, tenantId)).ledger_id;
}
