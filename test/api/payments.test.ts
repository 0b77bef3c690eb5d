import { apiClient, expectProblem } from '../support/http';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { uuidv7 } from '../../shared/kernel/ids';
import type { LedgerClient } from '../../shared/ledger-client/client';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { manifestWith, startTestPlatform } from '../support/platform';
import { storedEvents } from '../support/events';
import { balancesOf, createTenant, newUser } from '../support/tenants';
import { fundUser } from '../support/money';
import { walletDeps, walletLedgerClient } from '../support/wallet';

/**
 * Merchants, payments (authorize, capture, void, expire) and refunds over HTTP with real
 * credentials. Payers are funded with ledger postings from the tenant's funding account.
 * The platform keeps the default hold (7 days): an authorization here never expires while a busy
 * machine runs the test. Expiry is test/api/payments-expiry.test.ts's, on a clock it moves.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let documents: DocumentClient;
let ledger: LedgerClient;
let tenantId: string;
let apiKey: string;
let feeTenantId: string;
let feeKey: string;

async function newMerchant(key: string) {
  const result = await api('POST', '/v1/merchants', { token: key, body: { name: `shop ${uuidv7()}` } });
  expect(result.status, result.text).toBe(201);
  return result.body.id as string;
}

const pay = (key: string, body: Record<string, unknown>, idem = uuidv7()) => api('POST', '/v1/payments', { token: key, body: { currency: 'USD', ...body }, key: idem });
const capture = (key: string, id: string, body?: Record<string, unknown>) => api('POST', `/v1/payments/${id}/capture`, { token: key, body, key: uuidv7() });
const voidIt = (key: string, id: string) => api('POST', `/v1/payments/${id}/void`, { token: key, key: uuidv7() });
const refund = (key: string, body: Record<string, unknown>) => api('POST', '/v1/refunds', { token: key, body, key: uuidv7() });

async function expectBalanced(tenant: string) {
  const record = await getTenantRecord(walletDeps(platform, documents), tenant);
  const rollup = await ledger.rollup(record.ledger_id);
  expect(rollup.balanced).toBe(true);
  expect(rollup.commodities.every((c) => c.total === 0)).toBe(true);
  return rollup;
}

beforeAll(async () => {
  platform = await startTestPlatform({ routes: manifestWith(paymentRoutes) });
  base = platform.urls.public;
  documents = localDocumentClient(platform.dynamodbEndpoint);
  ledger = walletLedgerClient(platform);
  const platformStaff = await staffToken(platform, { role: 'platform' });
  [tenantId, feeTenantId] = [await createTenant(api, platformStaff, 'Payments A'), await createTenant(api, platformStaff, 'Payments fees')];
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  feeKey = await apiKeyFor(platform, feeTenantId, [...TENANT_SCOPES]);
  const plan = await api('PUT', '/v1/fee_plan', { token: feeKey, body: { payment: { bps: 250, flat: 10, min_fee: 0, max_fee: null }, commission: { bps: 1_000, flat: 0, min_fee: 0, max_fee: null } } });
  expect(plan.status, plan.text).toBe(200);
});

afterAll(async () => {
  await platform?.stop();
});

describe('merchants', () => {
  it('creates, reads and lists merchants', async () => {
    const id = await newMerchant(apiKey);
    const got = await api('GET', `/v1/merchants/${id}`, { token: apiKey });
    expect(got.status, got.text).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(['created_at', 'id', 'metadata', 'name', 'refund_reserve', 'status']);
    expect(got.body.status).toBe('active');
    const list = await api('GET', '/v1/merchants', { token: apiKey });
    expect(list.body.data.map((m: { id: string }) => m.id)).toContain(id);
    expectProblem(await api('GET', `/v1/merchants/${id}`, { token: feeKey }), 'not_found');
  });
});

describe('payment state machine', () => {
  it('captures at once by default: payer debited, merchant credited, payment.captured', async () => {
    const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 10_000);
    const result = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 2_500, description: 'books' });
    expect(result.status, result.text).toBe(201);
    expect(result.body).toMatchObject({ status: 'captured', amount: 2_500, captured_amount: 2_500, refunded_amount: 0, fee: 0, commission: 0, hold_expires_at: null });
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(7_500);
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'payment.captured')).some((e) => e.data.payment.id === result.body.id)).toBe(true);
    await expectBalanced(tenantId);
  });

  it('authorize -> capture (partial, rest released) and every illegal move after it is invalid_transition', async () => {
    const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 5_000);
    const auth = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 3_000, capture: false });
    expect(auth.status, auth.text).toBe(201);
    expect(auth.body.status).toBe('authorized');
    expect(auth.body.hold_expires_at).toEqual(expect.any(String));
    expect(await balancesOf(api, payer.id, apiKey)).toMatchObject({ available: 2_000, posted: 5_000, pending: 3_000 });
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'payment.authorized')).some((e) => e.data.payment.id === auth.body.id)).toBe(true);
    expectProblem(await capture(apiKey, auth.body.id, { amount: 3_001 }), 'invalid_request');
    const captured = await capture(apiKey, auth.body.id, { amount: 1_200 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'captured', captured_amount: 1_200 });
    expect(await balancesOf(api, payer.id, apiKey)).toMatchObject({ available: 3_800, posted: 3_800, pending: 0 });
    expectProblem(await capture(apiKey, auth.body.id), 'invalid_transition');
    expectProblem(await voidIt(apiKey, auth.body.id), 'invalid_transition');
    await expectBalanced(tenantId);
  });

  it('authorize -> void releases the hold; a voided payment cannot be captured, voided or refunded', async () => {
    const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 1_000);
    const auth = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 600, capture: false });
    const voided = await voidIt(apiKey, auth.body.id);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(await balancesOf(api, payer.id, apiKey)).toMatchObject({ available: 1_000, pending: 0 });
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'payment.voided')).filter((e) => e.data.payment.id === auth.body.id)).toHaveLength(1);
    expectProblem(await capture(apiKey, auth.body.id), 'invalid_transition');
    expectProblem(await voidIt(apiKey, auth.body.id), 'invalid_transition');
    expectProblem(await refund(apiKey, { payment_id: auth.body.id }), 'invalid_transition');
  });

  it('refuses capture and void without an Idempotency-Key, and voids with an empty JSON object for a body', async () => {
    const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 1_000);
    const auth = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 300, capture: false });

    expectProblem(await api('POST', `/v1/payments/${auth.body.id}/capture`, { token: apiKey, body: { amount: 100 } }), 'invalid_request');
    expectProblem(await api('POST', `/v1/payments/${auth.body.id}/void`, { token: apiKey }), 'invalid_request');
    expectProblem(await api('POST', `/v1/payments/${auth.body.id}/void`, { token: apiKey, body: { reason: 'not a field' }, key: uuidv7() }), 'invalid_request');
    expect((await api('GET', `/v1/payments/${auth.body.id}`, { token: apiKey })).body.status).toBe('authorized');

    const voided = await api('POST', `/v1/payments/${auth.body.id}/void`, { token: apiKey, body: {}, key: uuidv7() });
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
  });

  it('an authorization cannot be refunded; captured -> partially_refunded -> refunded, then no more', async () => {
    const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 1_000);
    const auth = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 1_000, capture: false });
    expectProblem(await refund(apiKey, { payment_id: auth.body.id }), 'invalid_transition');
    await capture(apiKey, auth.body.id);
    const first = await refund(apiKey, { payment_id: auth.body.id, amount: 400, reason: 'damaged' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ payment_id: auth.body.id, amount: 400, status: 'completed', reason: 'damaged' });
    expect((await api('GET', `/v1/payments/${auth.body.id}`, { token: apiKey })).body).toMatchObject({ status: 'partially_refunded', refunded_amount: 400 });
    expectProblem(await refund(apiKey, { payment_id: auth.body.id, amount: 601 }), 'invalid_request');
    const rest = await refund(apiKey, { payment_id: auth.body.id });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.amount).toBe(600);
    expect((await api('GET', `/v1/payments/${auth.body.id}`, { token: apiKey })).body).toMatchObject({ status: 'refunded', refunded_amount: 1_000 });
    expectProblem(await refund(apiKey, { payment_id: auth.body.id, amount: 1 }), 'invalid_transition');
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(1_000);
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'refund.completed')).filter((e) => e.data.refund.payment_id === auth.body.id)).toHaveLength(2);
    const listed = await api('GET', `/v1/refunds?payment_id=${auth.body.id}`, { token: apiKey });
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([rest.body.id, first.body.id]);
    // One refund by id: the tenant's, the payer's own token; another tenant or another user answers 404.
    const one = await api('GET', `/v1/refunds/${first.body.id}`, { token: apiKey });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toEqual(first.body);
    expect((await api('GET', `/v1/refunds/${first.body.id}`, { token: await userTokenFor(platform, apiKey, payer.externalId, ['payments:read']) })).body).toEqual(first.body);
    const stranger = await newUser(api, { token: apiKey });
    expectProblem(await api('GET', `/v1/refunds/${first.body.id}`, { token: await userTokenFor(platform, apiKey, stranger.externalId, ['payments:read']) }), 'not_found');
    expectProblem(await api('GET', `/v1/refunds/${first.body.id}`, { token: feeKey }), 'not_found');
    expectProblem(await api('GET', `/v1/refunds/${uuidv7()}`, { token: apiKey }), 'not_found');
    expectProblem(await api('GET', `/v1/refunds/${auth.body.id}`, { token: apiKey }), 'not_found');
    const refunded = await api('GET', `/v1/payments?status=refunded&user_id=${payer.id}`, { token: apiKey });
    expect(refunded.body.data.map((p: { id: string }) => p.id)).toEqual([auth.body.id]);
    await expectBalanced(tenantId);
  });

  it('refuses a payment above the balance, in another currency, or to an unknown merchant; replays by Idempotency-Key', async () => {
    const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 100);
    expectProblem(await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 101 }), 'insufficient_funds');
    expectProblem(await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 10, currency: 'EUR' }), 'invalid_request');
    expectProblem(await pay(apiKey, { user_id: payer.id, merchant_id: uuidv7(), amount: 10 }), 'not_found');
    const noKey = await api('POST', '/v1/payments', { token: apiKey, body: { user_id: payer.id, merchant_id: merchant, amount: 10, currency: 'USD' } });
    expect(noKey.status).toBe(400);
    const key = uuidv7();
    const first = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 10 }, key);
    const again = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 10 }, key);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(90);
  });

  it('a user token pays with its own money and sees only its own payments', async () => {
    const [payer, other, merchant] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
    await fundUser(platform, tenantId, payer.id, 500);
    await fundUser(platform, tenantId, other.id, 500);
    const token = await userTokenFor(platform, apiKey, payer.externalId, ['payments:write', 'payments:read']);
    const mine = await pay(token, { merchant_id: merchant, amount: 50 });
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body.user_id).toBe(payer.id);
    const theirs = await pay(apiKey, { user_id: other.id, merchant_id: merchant, amount: 50, capture: false });
    expectProblem(await api('GET', `/v1/payments/${theirs.body.id}`, { token: token }), 'not_found');
    expectProblem(await voidIt(token, theirs.body.id), 'not_found');
    expectProblem(await pay(token, { user_id: other.id, merchant_id: merchant, amount: 5 }), 'user_not_found');
    const list = await api('GET', '/v1/payments', { token: token });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([mine.body.id]);
    expect((await api('GET', '/v1/payments?status=authorized', { token: apiKey })).body.data.some((p: { id: string }) => p.id === theirs.body.id)).toBe(true);
  });
});

describe('concurrency', () => {
  it('capture and void of one authorization at once: exactly one wins', async () => {
    for (let round = 0; round < 3; round += 1) {
      const [payer, merchant] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey)];
      await fundUser(platform, tenantId, payer.id, 1_000);
      const auth = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 700, capture: false });
      const [c, v] = await Promise.all([capture(apiKey, auth.body.id), voidIt(apiKey, auth.body.id)]);
      const statuses = [c.status, v.status].sort();
      expect(statuses, `${c.text} ${v.text}`).toEqual([200, 409]);
      const loser = c.status === 200 ? v : c;
      expect(['invalid_transition', 'idempotency_in_flight']).toContain(loser.body.code);
      const final = (await api('GET', `/v1/payments/${auth.body.id}`, { token: apiKey })).body;
      expect(final.status).toBe(c.status === 200 ? 'captured' : 'voided');
      expect((await balancesOf(api, payer.id, apiKey)).available).toBe(c.status === 200 ? 300 : 1_000);
    }
    await expectBalanced(tenantId);
  });

  it('two refunds that together exceed the captured amount: one is refused', async () => {
    const [payer, merchant, other] = [await newUser(api, { token: apiKey }), await newMerchant(apiKey), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, payer.id, 1_000);
    await fundUser(platform, tenantId, other.id, 5_000);
    // The merchant has other proceeds, so only the payment's captured amount limits the refunds.
    await pay(apiKey, { user_id: other.id, merchant_id: merchant, amount: 5_000 });
    const paid = await pay(apiKey, { user_id: payer.id, merchant_id: merchant, amount: 1_000 });
    const [a, b] = await Promise.all([refund(apiKey, { payment_id: paid.body.id, amount: 600 }), refund(apiKey, { payment_id: paid.body.id, amount: 600 })]);
    expect([a.status, b.status].sort(), `${a.text} ${b.text}`).toEqual([201, 400]);
    expect((a.status === 400 ? a : b).body.code).toBe('invalid_request');
    expect((await api('GET', `/v1/payments/${paid.body.id}`, { token: apiKey })).body).toMatchObject({ status: 'partially_refunded', refunded_amount: 600 });
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(600);
    await expectBalanced(tenantId);
  });

  it("a refund the merchant's settlement cannot cover is refused by its floor and gives its claim back", async () => {
    const [payer, merchant] = [await newUser(api, { token: feeKey }), await newMerchant(feeKey)];
    await fundUser(platform, feeTenantId, payer.id, 1_000);
    const paid = await pay(feeKey, { user_id: payer.id, merchant_id: merchant, amount: 1_000 });
    expect(paid.status, paid.text).toBe(201);
    expectProblem(await refund(feeKey, { payment_id: paid.body.id }), 'insufficient_funds');
    const partial = await refund(feeKey, { payment_id: paid.body.id, amount: 500 });
    expect(partial.status, partial.text).toBe(201);
    await expectBalanced(feeTenantId);
  });
});

describe('fee and commission', () => {
  it('deduct: the merchant pays fee and commission; add: the payer pays the commission on top (API)', async () => {
    const revenueOf = async () => (await expectBalanced(feeTenantId)).rows.filter((r) => r.purpose === 'revenue').reduce((sum, r) => sum + Math.abs(r.balance), 0);
    const revenueBefore = await revenueOf();
    const [payer, merchant] = [await newUser(api, { token: feeKey }), await newMerchant(feeKey)];
    await fundUser(platform, feeTenantId, payer.id, 100_000);
    const auth = await pay(feeKey, { user_id: payer.id, merchant_id: merchant, amount: 10_000, capture: false });
    const captured = await capture(feeKey, auth.body.id, { amount: 8_000 });
    // fee = 10 + 2.5 % of 8 000 = 210; commission = 10 % = 800.
    expect(captured.body).toMatchObject({ captured_amount: 8_000, fee: 210, commission: 800, commission_mode: 'deduct' });
    expect((await balancesOf(api, payer.id, feeKey)).available).toBe(92_000);
    const mode = await api('PUT', '/v1/fee_plan', { token: feeKey, body: { commission_mode: 'add' } });
    expect(mode.status, mode.text).toBe(200);
    const added = await pay(feeKey, { user_id: payer.id, merchant_id: merchant, amount: 1_000, capture: false });
    expect(await balancesOf(api, payer.id, feeKey)).toMatchObject({ pending: 1_100 });
    const done = await capture(feeKey, added.body.id);
    expect(done.body).toMatchObject({ captured_amount: 1_000, fee: 35, commission: 100, commission_mode: 'add' });
    expect((await balancesOf(api, payer.id, feeKey)).available).toBe(92_000 - 1_100);
    await api('PUT', '/v1/fee_plan', { token: feeKey, body: { commission_mode: 'deduct' } });
    expect((await revenueOf()) - revenueBefore).toBe(210 + 800 + 35 + 100);
  });
});
