import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { sandboxRailRequest } from '../../shared/wallet/payouts/sandbox';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem, type Api } from '../support/http';
import { fundUser } from '../support/money';
import { call, startTestPlatform } from '../support/platform';
import { startReceiver, type Receiver } from '../integration/webhooks-receiver';
import { until } from '../support/time';
import { nowSeconds, postSigned, sandboxSecret } from '../support/sandbox';

/**
 * Payouts over HTTP, as a tenant's backend runs them: a merchant with captured payments pays out
 * part of its settlement through the sandbox rail; amount + fee are held at once, then paid (or
 * released) when the rail's signed confirmation arrives; the books add up and the events arrive.
 */

const stripe = new Stripe('sk_test_unused');
let platform: Platform;
let receiver: Receiver;
let operator: string;
/** The payout fee of every shop below: 25 + 1% (1000 -> 35, 100 -> 26). */
const PAYOUT_FEE = { bps: 100, flat: 25, min_fee: 0 };
const feeOf = (amount: number) => 25 + Math.round(amount / 100);

beforeAll(async () => {
  platform = await startTestPlatform();
  receiver = await startReceiver();
  operator = await staffToken(platform, { role: 'platform' });
});

afterAll(async () => {
  await receiver?.close();
  await platform?.stop();
});

interface Shop {
  api: Api;
  key: string;
  tenantId: string;
  merchant: string;
}

/** A tenant of its own (its summary is the test's), a payout fee, and a merchant whose settlement holds `settled` from one captured payment. */
async function shop(settled: number, merchantBody: Record<string, unknown> = {}): Promise<Shop> {
  const tenant = await call(platform.urls.public, 'POST', '/v1/tenants', { token: operator, headers: { 'idempotency-key': uuidv7() }, body: { name: `Payouts ${uuidv7().slice(-6)}`, currency: 'USD' } });
  expect(tenant.status, tenant.text).toBe(201);
  const key = await apiKeyFor(platform, tenant.body.id, [...TENANT_SCOPES], { env: 'sandbox' });
  const api = apiClient(() => platform.urls.public, () => key);
  expect((await api('PUT', '/v1/fee_plan', { body: { payout: PAYOUT_FEE } })).status).toBe(200);
  const merchant = await api('POST', '/v1/merchants', { body: { name: 'Corner books', ...merchantBody } });
  expect(merchant.status, merchant.text).toBe(201);
  const payer = (await api('POST', '/v1/users', { body: { external_id: `payer-${uuidv7()}` } })).body.id as string;
  await fundUser(platform, tenant.body.id, payer, settled);
  const paid = await api('POST', '/v1/payments', { key: uuidv7(), body: { user_id: payer, merchant_id: merchant.body.id, amount: settled, currency: 'USD' } });
  expect(paid.status, paid.text).toBe(201);
  return { api, key, tenantId: tenant.body.id, merchant: merchant.body.id };
}

const payout = (s: Shop, body: Record<string, unknown>, key = uuidv7()) => s.api('POST', '/v1/payouts', { key, body: { merchant_id: s.merchant, currency: 'USD', ...body } });

async function payoutSettled(s: Shop, id: string): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  await until(async () => {
    await platform.queues.drain();
    last = (await s.api('GET', `/v1/payouts/${id}`)).body;
    return last.status !== 'pending';
  }, 60_000, `payout ${id} to settle`);
  return last;
}

async function summary(s: Shop) {
  const rows = (await s.api('GET', '/v1/ledger/summary')).body.rows as { owner_type: string; purpose: string; balance: number }[];
  const balance = (owner: string, purpose: string) => rows.filter((r) => r.owner_type === owner && r.purpose === purpose).reduce((sum, r) => sum + r.balance, 0);
  return { balance, total: rows.reduce((sum, r) => sum + r.balance, 0) };
}

describe('a payout', () => {
  it('holds amount and fee at once, is paid when the rail confirms, and the books and the event add up', async () => {
    const s = await shop(5_000);
    const endpoint = await s.api('POST', '/v1/webhook_endpoints', { body: { url: receiver.route('/payouts'), event_filters: ['payout.*'] } });
    expect(endpoint.status, endpoint.text).toBe(201);

    const created = await payout(s, { amount: 1_000, description: 'November' });

    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ merchant_id: s.merchant, amount: 1_000, fee: 35, total_debit: 1_035, status: 'pending', rail: 'sandbox', failure_reason: null, ledger_transaction_id: null });
    // Held: 3,965 is left, so 4,000 + its fee of 65 is refused and nothing more is held.
    expectProblem(await payout(s, { amount: 4_000 }), 'insufficient_funds');
    const paid = await payoutSettled(s, created.body.id);
    expect(paid).toMatchObject({ status: 'paid', ledger_transaction_id: expect.any(String) });

    const books = await summary(s);
    expect(books.balance('merchant', 'settlement')).toBe(5_000 - 1_035);
    expect(books.balance('tenant', 'payout_clearing')).toBe(1_000);
    expect(books.balance('tenant', 'revenue')).toBe(35);
    expect(books.total).toBe(0);

    await until(async () => {
      await platform.queues.drain();
      return receiver.requests('/payouts').length >= 1;
    }, 15_000, 'payout.paid at the receiver');
    const [delivery] = receiver.requests('/payouts');
    expect(() => stripe.webhooks.signature!.verifyHeader(delivery!.body, String(delivery!.headers['x-wallet-signature']), endpoint.body.secret, 300)).not.toThrow();
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'payout.paid', tenant_id: s.tenantId, data: { payout: { id: created.body.id, status: 'paid', amount: 1_000, fee: 35 } } });

    const listed = await s.api('GET', `/v1/payouts?merchant_id=${s.merchant}&status=paid`);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    expect((await s.api('GET', '/v1/payouts?status=failed')).body.data).toEqual([]);
  });

  it('that the rail fails releases the hold and moves nothing', async () => {
    const s = await shop(2_000);

    const created = await payout(s, { amount: 1_500, sandbox_outcome: 'fail' });
    expect(created.status, created.text).toBe(201);
    const failed = await payoutSettled(s, created.body.id);

    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'account_closed_at_bank', ledger_transaction_id: null });
    const books = await summary(s);
    expect(books.balance('merchant', 'settlement')).toBe(2_000);
    expect(books.balance('tenant', 'payout_clearing')).toBe(0);
    expect(books.balance('tenant', 'revenue')).toBe(0);
    // The whole balance is available again: 1,955 + its fee of 45 is exactly 2,000.
    expect((await payout(s, { amount: 1_955 })).status).toBe(201);
    const events = (await s.api('GET', '/v1/webhook_events')).body.data as { type: string; data: { payout: { id: string } } }[];
    expect(events.filter((e) => e.type === 'payout.failed').map((e) => e.data.payout.id)).toEqual([created.body.id]);
  });

  it('holds exactly 10 of 30 concurrent payouts against a balance that covers 10', async () => {
    const s = await shop(10 * (100 + feeOf(100)));

    const results = await Promise.all(Array.from({ length: 30 }, () => payout(s, { amount: 100 })));

    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(20);
    for (const result of refused) expectProblem(result, 'insufficient_funds');
    const all = (await s.api('GET', '/v1/payouts?limit=100')).body.data as { id: string }[];
    expect(all).toHaveLength(10);
    for (const p of all) expect((await payoutSettled(s, p.id)).status).toBe('paid');
    const books = await summary(s);
    expect(books.balance('merchant', 'settlement')).toBe(0);
    expect(books.balance('tenant', 'payout_clearing')).toBe(1_000);
    expect(books.total).toBe(0);
  });

  it('leaves the merchant\'s refund reserve behind', async () => {
    const s = await shop(3_000, { refund_reserve: 1_000 });
    expect((await s.api('GET', `/v1/merchants/${s.merchant}`)).body.refund_reserve).toBe(1_000);

    expectProblem(await payout(s, { amount: 2_000 }), 'insufficient_funds');
    // 1,955 + 45 leaves exactly the reserve.
    expect((await payout(s, { amount: 1_955 })).status).toBe(201);

    const changed = await s.api('PATCH', `/v1/merchants/${s.merchant}`, { body: { refund_reserve: 0 } });
    expect(changed.body).toMatchObject({ id: s.merchant, refund_reserve: 0 });
    const audit = (await s.api('GET', '/v1/audit_log')).body.data as { action: string; before: { refund_reserve: number }; after: { refund_reserve: number } }[];
    expect(audit.find((r) => r.action === 'merchant.update')).toMatchObject({ before: { refund_reserve: 1_000 }, after: { refund_reserve: 0 } });
    // With no reserve the rest can go: 965 + its fee of 35 is the whole 1,000 left.
    expect((await payout(s, { amount: 965 })).status).toBe(201);
  });

  it('keeps both of two concurrent merchant updates of different fields', async () => {
    const s = await shop(1_000, { refund_reserve: 100 });
    const [renamed, reserved] = await Promise.all([
      s.api('PATCH', `/v1/merchants/${s.merchant}`, { body: { name: 'Renamed' } }),
      s.api('PATCH', `/v1/merchants/${s.merchant}`, { body: { refund_reserve: 300 } }),
    ]);
    expect([renamed.status, reserved.status]).toEqual([200, 200]);
    expect((await s.api('GET', `/v1/merchants/${s.merchant}`)).body).toMatchObject({ name: 'Renamed', refund_reserve: 300 });
  });

  it('answers a retried request with the first answer and holds once', async () => {
    const s = await shop(1_000);
    const key = uuidv7();

    const first = await payout(s, { amount: 500 }, key);
    const again = await payout(s, { amount: 500 }, key);

    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await payout(s, { amount: 501 }, key), 'idempotency_key_reuse');
    expect((await s.api('GET', '/v1/payouts')).body.data).toHaveLength(1);
  });
});

describe('the rail webhook', () => {
  const railWebhook = (request: { body: string; headers: Record<string, string> }) => postSigned(platform.urls.public, '/v1/payout_rail_webhooks/sandbox', request);

  it('answers a duplicate confirmation with the first answer, ignores a late contradicting one, and moves money once', async () => {
    const s = await shop(1_000);
    const created = await payout(s, { amount: 400 });
    const paid = await payoutSettled(s, created.body.id);
    const event = { id: `sbx_pevt_${String(created.body.id).replace(/-/g, '')}`, type: 'payout.paid' as const, payout_id: created.body.id, rail_ref: paid.rail_ref, failure_reason: null };

    const duplicate = await railWebhook(sandboxRailRequest(event, sandboxSecret(), nowSeconds()));
    expect(duplicate.status, duplicate.text).toBe(200);
    expect(duplicate.body).toMatchObject({ event_id: event.id, payout_id: created.body.id, status: 'paid', ignored: false });
    expect(duplicate.headers.get('idempotent-replayed')).toBe('true');
    const contradicting = await railWebhook(sandboxRailRequest({ ...event, id: `evt_${uuidv7()}`, type: 'payout.failed', failure_reason: 'late' }, sandboxSecret(), nowSeconds()));
    expect(contradicting.body).toMatchObject({ status: 'paid', ignored: true });

    expect((await s.api('GET', `/v1/payouts/${created.body.id}`)).body).toMatchObject({ status: 'paid', failure_reason: null });
    const books = await summary(s);
    expect(books.balance('merchant', 'settlement')).toBe(1_000 - 400 - feeOf(400));
    expect(books.balance('tenant', 'payout_clearing')).toBe(400);
  });

  it('refuses a forged, stale or foreign-payout confirmation', async () => {
    const s = await shop(1_000);
    const created = await payout(s, { amount: 100 });
    const event = { id: `evt_${uuidv7()}`, type: 'payout.failed' as const, payout_id: created.body.id, rail_ref: created.body.rail_ref, failure_reason: 'forged' };

    expectProblem(await railWebhook(sandboxRailRequest(event, 'not-the-secret-'.repeat(4), nowSeconds())), 'unauthenticated');
    expectProblem(await railWebhook(sandboxRailRequest(event, sandboxSecret(), nowSeconds() - 600)), 'unauthenticated');
    expectProblem(await railWebhook(sandboxRailRequest({ ...event, rail_ref: 'sbx_po_other' }, sandboxSecret(), nowSeconds())), 'conflict');
    expectProblem(await railWebhook(sandboxRailRequest({ ...event, payout_id: uuidv7() }, sandboxSecret(), nowSeconds())), 'not_found');
    expectProblem(await call(platform.urls.public, 'POST', '/v1/payout_rail_webhooks/nowhere', { rawBody: '{}', headers: { 'content-type': 'application/json' } }), 'not_found');
    expect((await payoutSettled(s, created.body.id)).status).toBe('paid');
  });
});

describe('who may pay out', () => {
  it('refuses a live API key on the sandbox rail, and an unknown rail, holding nothing', async () => {
    const s = await shop(1_000);
    const live = await apiKeyFor(platform, s.tenantId, [...TENANT_SCOPES], { env: 'live' });

    expectProblem(await s.api('POST', '/v1/payouts', { token: live, key: uuidv7(), body: { merchant_id: s.merchant, amount: 100, currency: 'USD' } }), 'invalid_request');
    expectProblem(await payout(s, { amount: 100, rail: 'wire' }), 'invalid_request');
    expectProblem(await payout(s, { amount: 100, currency: 'EUR' }), 'invalid_request');
    expectProblem(await payout(s, { amount: 100, merchant_id: uuidv7() }), 'not_found');
    expect((await s.api('GET', '/v1/payouts')).body.data).toEqual([]);
  });

  it("lets a key bound to a client pay out and read its own merchant only, and pays out a hidden client's merchant", async () => {
    const s = await shop(1_000);
    const client = await clientOf(platform.urls.public, s.key);
    const other = await shop(500);
    const payer = (await s.api('POST', '/v1/users', { body: { external_id: `p-${uuidv7()}` } })).body.id as string;
    await fundUser(platform, s.tenantId, payer, 800);
    expect((await s.api('POST', '/v1/payments', { key: uuidv7(), body: { user_id: payer, merchant_id: client.merchantId, amount: 800, currency: 'USD' } })).status).toBe(201);
    const bound = await apiKeyFor(platform, s.tenantId, ['merchants:read', 'merchants:write'], { clientId: client.id });
    const boundApi = apiClient(() => platform.urls.public, () => bound);

    expectProblem(await boundApi('POST', '/v1/payouts', { key: uuidv7(), body: { merchant_id: s.merchant, amount: 100, currency: 'USD' } }), 'not_found');
    const own = await boundApi('POST', '/v1/payouts', { key: uuidv7(), body: { merchant_id: client.merchantId, amount: 100, currency: 'USD' } });
    expect(own.status, own.text).toBe(201);
    const tenantWide = await payout(s, { amount: 100 });
    expectProblem(await boundApi('GET', `/v1/payouts/${tenantWide.body.id}`), 'not_found');
    expect((await boundApi('GET', '/v1/payouts')).body.data.map((p: { id: string }) => p.id)).toEqual([own.body.id]);
    expectProblem(await boundApi('GET', `/v1/payouts?merchant_id=${s.merchant}`), 'not_found');
    expectProblem(await s.api('GET', `/v1/payouts/${(await payout(other, { amount: 100 })).body.id}`), 'not_found');

    expect((await call(platform.urls.public, 'POST', `/v1/platform/clients/${client.id}/hide`, { token: operator })).status).toBe(200);
    const afterHiding = await boundApi('POST', '/v1/payouts', { key: uuidv7(), body: { merchant_id: client.merchantId, amount: 100, currency: 'USD' } });
    expect(afterHiding.status, afterHiding.text).toBe(201);
    expect((await payoutSettled(s, afterHiding.body.id)).status).toBe('paid');
  });
});
