import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { startReceiver, type Receiver } from '../integration/webhooks-receiver';
import { until } from '../support/time';
import { clientOf, inventoryOf, newVariant, stockMovements } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem, sendUntilFinal } from '../support/http';
import { fundUser } from '../support/money';
import { startTestPlatform } from '../support/platform';
import { cancelPlacedOrder, payForOrder, placeOrder } from '../support/payments';
import { createTenant, fundedUsers, type TenantOfTest } from '../support/tenants';

/**
 * Orders over HTTP: stock held from the cart on like money in a pending posting, paid with one
 * payment, ended exactly once. The platform runs on a clock the test moves (ORDER_HOLD_SECONDS
 * 900), so orders age without sleeping.
 */

const clock = new ManualClock(new Date());
let platform: Platform;
let base: string;
const api = apiClient(() => base);
let receiver: Receiver;
let tenantId: string;
let apiKey: string;
let clientId: string;
let tenantOfTest: TenantOfTest;
const shopper = fundedUsers(() => tenantOfTest, { prefix: 'shopper', scopes: ['payments:read', 'payments:write', 'balances:read'] });

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startTestPlatform({ clock });
  base = platform.urls.public;
  const platformStaff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, platformStaff, 'Orders');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  tenantOfTest = { platform, api, tenantId, apiKey };
  const plan = await api('PUT', '/v1/fee_plan', { token: apiKey, body: { payment: { bps: 100, flat: 0, min_fee: 0 }, commission: { bps: 500, flat: 0, min_fee: 0 } } });
  expect(plan.status, plan.text).toBe(200);
  clientId = (await clientOf(base, apiKey)).id;
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});


describe('an order', () => {
  it('reserves its units, is paid with one payment that pays the merchant, fee and commission, sells them, and tells the merchant', async () => {
    const endpoint = await api('POST', `/v1/clients/${clientId}/webhook_endpoints`, { token: apiKey, body: { url: receiver.route('/merchant'), event_filters: ['order.*', 'inventory.*'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const buyer = await shopper(10_000);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 3, low_stock_threshold: 1 });

    const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 2 }]);
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body).toMatchObject({ status: 'open', user_id: buyer.id, client_id: clientId, amount: 3_000, commission: 150, fee: 0, payment_id: null, currency: 'USD' });
    expect(opened.body.lines).toEqual([expect.objectContaining({ variant_id: variant.id, quantity: 2, unit_amount: 1_500, amount: 3_000, commission_bps: 500 })]);
    expect(new Date(opened.body.expires_at).getTime() - clock.now().getTime()).toBe(900_000);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 3, reserved: 2, available: 1 });
    expect((await stockMovements(api, apiKey, clientId, variant.id))[0]).toMatchObject({ kind: 'reservation', quantity: 2, on_hand_after: 3, reserved_after: 2, order_id: opened.body.id });

    const paid = await payForOrder(api, buyer.token, opened.body.id);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', fee: 30, payment_id: expect.any(String) });
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 1, reserved: 0, available: 1, low_stock: true });
    expect((await stockMovements(api, apiKey, clientId, variant.id))[0]).toMatchObject({ kind: 'sale', quantity: -2, on_hand_after: 1, reserved_after: 0, order_id: opened.body.id });

    const payment = await api('GET', `/v1/payments/${paid.body.payment_id}`, { token: apiKey });
    expect(payment.body).toMatchObject({ status: 'captured', amount: 3_000, fee: 30, commission: 150, user_id: buyer.id });
    expect((await api('GET', `/v1/users/${buyer.id}/balances`, { token: apiKey })).body.available).toBe(7_000);
    const summary = await api('GET', '/v1/ledger/summary', { token: apiKey });
    const row = (owner: string, purpose: string) => summary.body.rows.find((r: { owner_type: string; purpose: string }) => r.owner_type === owner && r.purpose === purpose);
    expect(row('merchant', 'settlement').balance).toBeGreaterThanOrEqual(2_820);

    await until(() => receiver.requests('/merchant').length >= 3, 15_000, 'order events at the merchant');
    await platform.streams!.settle();
    await platform.queues.drain();
    const types = receiver.requests('/merchant').map((request) => JSON.parse(request.body) as { type: string; client_id: string; data: Record<string, { id: string }> });
    expect(types.map((event) => event.type).sort()).toEqual(['inventory.low_stock', 'order.created', 'order.paid']);
    expect(types.every((event) => event.client_id === clientId)).toBe(true);
    expect(types.find((event) => event.type === 'inventory.low_stock')!.data.variant!.id).toBe(variant.id);

    // Paid once: another pay, or a cancel, is refused.
    expectProblem(await payForOrder(api, buyer.token, opened.body.id), 'invalid_transition');
    expectProblem(await cancelPlacedOrder(api, buyer.token, opened.body.id), 'invalid_transition');
  });

  it('checks a cart against the summed demand of its lines on one variant', async () => {
    const buyer = await shopper(0);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 3 });
    const refused = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 2 }, { variant_id: variant.id, quantity: 2 }]);
    expectProblem(refused, 'out_of_stock');
    expect(refused.body.errors).toEqual([{ field: `variant ${variant.id}`, message: '4 wanted, 3 available' }]);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ reserved: 0 });
    const fits = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }, { variant_id: variant.id, quantity: 2 }]);
    expect(fits.status, fits.text).toBe(201);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ reserved: 3, available: 0, in_stock: false });
  });

  it('reserves nothing for an untracked variant, and beyond on_hand for a backorder variant', async () => {
    const buyer = await shopper(0);
    const untracked = await newVariant(api, apiKey, clientId, { track_inventory: false });
    const backorder = await newVariant(api, apiKey, clientId, { on_hand: 1, allow_backorder: true });
    const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: untracked.id, quantity: 5 }, { variant_id: backorder.id, quantity: 3 }]);
    expect(opened.status, opened.text).toBe(201);
    expect(await inventoryOf(api, apiKey, clientId, untracked)).toMatchObject({ reserved: 0 });
    expect(await inventoryOf(api, apiKey, clientId, backorder)).toMatchObject({ on_hand: 1, reserved: 3 });
    expect(await stockMovements(api, apiKey, clientId, untracked.id)).toEqual([]);
  });

  it('refuses what cannot be sold: a hidden client, a draft offering, a retired variant, another client\'s variant', async () => {
    const buyer = await shopper(0);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 5 });
    const draft = await api('POST', `/v1/clients/${clientId}/offerings`, { token: apiKey, body: { title: 'Draft', variants: [{ sku: `D-${uuidv7().slice(-10)}`, amount: 5 }] } });
    expectProblem(await placeOrder(api, buyer.token, clientId, [{ variant_id: draft.body.variants[0].id, quantity: 1 }]), 'offering_not_found');
    expectProblem(await placeOrder(api, buyer.token, clientId, [{ variant_id: uuidv7(), quantity: 1 }]), 'invalid_request');
    const other = await clientOf(base, apiKey);
    expectProblem(await api('POST', '/v1/orders', { token: buyer.token, key: uuidv7(), body: { client_id: other.id, lines: [{ variant_id: variant.id, quantity: 1 }] } }), 'invalid_request');
    const staff = await staffToken(platform, { role: 'platform' });
    const hidden = await clientOf(base, apiKey);
    await api('POST', `/v1/platform/clients/${hidden.id}/hide`, { token: staff });
    expectProblem(await api('POST', '/v1/orders', { token: buyer.token, key: uuidv7(), body: { client_id: hidden.id, lines: [{ variant_id: variant.id, quantity: 1 }] } }), 'client_not_found');
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ reserved: 0 });
  });

  it('stays open with its stock held when the shopper cannot pay, and is paid once funded', async () => {
    const buyer = await shopper(1_000);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 2 });
    const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    expectProblem(await payForOrder(api, buyer.token, opened.body.id), 'insufficient_funds');
    expect((await api('GET', `/v1/orders/${opened.body.id}`, { token: buyer.token })).body.status).toBe('open');
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ reserved: 1 });
    await fundUser(platform, tenantId, buyer.id, 1_000);
    expect((await payForOrder(api, buyer.token, opened.body.id)).status).toBe(200);
  });

  it('is canceled once by its shopper or its client, releasing its units, and replays a retried cancel', async () => {
    const buyer = await shopper(0);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 4 });
    const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 3 }]);
    const key = uuidv7();
    const canceled = await cancelPlacedOrder(api, buyer.token, opened.body.id, key);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect((await cancelPlacedOrder(api, buyer.token, opened.body.id, key)).headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await cancelPlacedOrder(api, buyer.token, opened.body.id), 'invalid_transition');
    expectProblem(await payForOrder(api, buyer.token, opened.body.id), 'invalid_transition');
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 4, reserved: 0 });
    expect((await stockMovements(api, apiKey, clientId, variant.id))[0]).toMatchObject({ kind: 'release', quantity: -3, reserved_after: 0 });

    const bound = await apiKeyFor(platform, tenantId, ['payments:write', 'payments:read'], { clientId });
    const second = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    expect((await cancelPlacedOrder(api, bound, second.body.id)).status).toBe(200);
    const stranger = await shopper(0);
    const third = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    expectProblem(await cancelPlacedOrder(api, stranger.token, third.body.id), 'not_found');
    expectProblem(await api('GET', `/v1/orders/${third.body.id}`, { token: stranger.token }), 'not_found');
  });
});

describe('the order cap', () => {
  it('holds what the shopper is debited, commission added on top included, to the ledger\'s cap, and holds no stock for a refused order', async () => {
    const staff = await staffToken(platform, { role: 'platform' });
    const tenant = await api('POST', '/v1/tenants', { token: staff, key: uuidv7(), body: { name: 'Orders add', currency: 'USD' } });
    const key = await apiKeyFor(platform, tenant.body.id, [...TENANT_SCOPES]);
    const plan = await api('PUT', '/v1/fee_plan', { token: key, body: { commission: { bps: 500, flat: 0, min_fee: 0 }, commission_mode: 'add' } });
    expect(plan.status, plan.text).toBe(200);
    const client = await clientOf(base, key);
    const offering = await api('POST', `/v1/clients/${client.id}/offerings`, {
      token: key,
      body: { title: 'Vault', status: 'published', variants: [{ sku: `V-${uuidv7().slice(-10)}`, amount: 2 ** 45 - 1, inventory: { on_hand: 3 } }] },
    });
    expect(offering.status, offering.text).toBe(201);
    const user = await api('POST', '/v1/users', { token: key, body: { external_id: `vault-${uuidv7()}` } });
    const body = (variantId: string) => ({ client_id: client.id, user_id: user.body.id, lines: [{ variant_id: variantId, quantity: 1 }] });
    const refused = await api('POST', '/v1/orders', { token: key, key: uuidv7(), body: body(offering.body.variants[0].id) });
    expectProblem(refused, 'invalid_request');
    expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'lines' })]);
    const inventory = (await api('GET', `/v1/clients/${client.id}/offerings/${offering.body.id}`, { token: key })).body.variants[0].inventory;
    expect(inventory).toMatchObject({ on_hand: 3, reserved: 0 });
  });
});

describe('listing orders', () => {
  it('shows a shopper its own, a bound key its client\'s, and the tenant all, newest first, by status and client', async () => {
    const [alice, bob] = [await shopper(0), await shopper(0)];
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 10 });
    const first = await placeOrder(api, alice.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    const second = await placeOrder(api, alice.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    const bobs = await placeOrder(api, bob.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    await cancelPlacedOrder(api, alice.token, first.body.id);

    const own = await api('GET', '/v1/orders', { token: alice.token });
    expect(own.body.data.map((o: { id: string }) => o.id)).toEqual([second.body.id, first.body.id]);
    const open = await api('GET', '/v1/orders?status=open', { token: alice.token });
    expect(open.body.data.map((o: { id: string }) => o.id)).toEqual([second.body.id]);
    expectProblem(await api('GET', `/v1/orders?user_id=${bob.id}`, { token: alice.token }), 'user_not_found');

    const all = await api('GET', `/v1/orders?client_id=${clientId}&limit=100`, { token: apiKey });
    expect(all.body.data.map((o: { id: string }) => o.id)).toEqual(expect.arrayContaining([first.body.id, second.body.id, bobs.body.id]));
    const bound = await apiKeyFor(platform, tenantId, ['payments:read'], { clientId });
    const other = await clientOf(base, apiKey);
    expectProblem(await api('GET', `/v1/orders?client_id=${other.id}`, { token: bound }), 'client_not_found');
    expect((await api('GET', '/v1/orders?limit=100', { token: bound })).body.data.every((o: { client_id: string }) => o.client_id === clientId)).toBe(true);
    const otherBound = await apiKeyFor(platform, tenantId, ['payments:read'], { clientId: other.id });
    expectProblem(await api('GET', `/v1/orders/${bobs.body.id}`, { token: otherBound }), 'not_found');
  });
});

describe('concurrency', () => {
  it('200 concurrent orders of one unit against a stock of 10: exactly 10 open, 190 out_of_stock, 10 reserved', async () => {
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 10 });
    const buyer = await shopper(0);
    // As a client would: an answer marked retryable is sent again with the same key until it is final.
    const results = await Promise.all(Array.from({ length: 200 }, () => sendUntilFinal((key) => placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }], key))));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201), JSON.stringify(results.filter((r) => r.status !== 201 && r.body?.code !== 'out_of_stock').map((r) => r.body))).toHaveLength(10);
    for (const refused of results.filter((r) => r.status !== 201)) expectProblem(refused, 'out_of_stock');
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 10, reserved: 10, available: 0 });
    const log = await stockMovements(api, apiKey, clientId, variant.id);
    expect(log.filter((m) => m.kind === 'reservation')).toHaveLength(10);
    expect(log.filter((m) => m.kind === 'reservation').map((m) => m.reserved_after).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('pay and cancel racing: exactly one wins, and the stock follows the winner', async () => {
    for (let round = 0; round < 5; round += 1) {
      const buyer = await shopper(5_000);
      const variant = await newVariant(api, apiKey, clientId, { on_hand: 2 });
      const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
      const [paid, canceled] = await Promise.all([payForOrder(api, buyer.token, opened.body.id), cancelPlacedOrder(api, buyer.token, opened.body.id)]);
      expect([paid.status, canceled.status].filter((s) => s === 200), `${paid.text} ${canceled.text}`).toHaveLength(1);
      const final = (await api('GET', `/v1/orders/${opened.body.id}`, { token: buyer.token })).body;
      if (paid.status === 200) {
        expectProblem(canceled, 'invalid_transition');
        expect(final.status).toBe('paid');
        expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 1, reserved: 0 });
      } else {
        expect([409, 422]).toContain(paid.status);
        expect(final.status).toBe('canceled');
        expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 2, reserved: 0 });
        expect((await api('GET', `/v1/users/${buyer.id}/balances`, { token: apiKey })).body.available).toBe(5_000);
      }
    }
  });
});

describe('a refund of an order\'s payment', () => {
  it('may return the order\'s units to stock, once per order', async () => {
    const buyer = await shopper(5_000);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 5 });
    const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 2 }]);
    const paid = await payForOrder(api, buyer.token, opened.body.id);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 3 });
    const refund = await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paid.body.payment_id, amount: 1_000, restock: true } });
    expect(refund.status, refund.text).toBe(201);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 5, reserved: 0 });
    expect((await stockMovements(api, apiKey, clientId, variant.id))[0]).toMatchObject({ kind: 'restock', quantity: 2, on_hand_after: 5, order_id: opened.body.id });
    expectProblem(await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paid.body.payment_id, amount: 500, restock: true } }), 'invalid_request');
    // Without restock, more of the money comes back and the stock stays.
    expect((await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paid.body.payment_id, amount: 500 } })).status).toBe(201);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 5 });
    const merchant = await api('POST', '/v1/merchants', { token: apiKey, body: { name: 'Plain' } });
    const plain = await api('POST', '/v1/payments', { token: apiKey, key: uuidv7(), body: { user_id: buyer.id, merchant_id: merchant.body.id, amount: 100, currency: 'USD' } });
    expectProblem(await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: plain.body.id, restock: true } }), 'invalid_request');
  });
});

describe('an order\'s payment', () => {
  it('is captured already: capturing or voiding it is invalid_transition, and the payment is unchanged', async () => {
    const buyer = await shopper(5_000);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 5 });
    const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    const paid = await payForOrder(api, buyer.token, opened.body.id);
    expect(paid.status, paid.text).toBe(200);
    const paymentId = paid.body.payment_id as string;
    const before = await api('GET', `/v1/payments/${paymentId}`, { token: apiKey });
    expectProblem(await api('POST', `/v1/payments/${paymentId}/capture`, { token: apiKey, key: uuidv7() }), 'invalid_transition');
    expectProblem(await api('POST', `/v1/payments/${paymentId}/capture`, { token: apiKey, key: uuidv7(), body: { amount: 100 } }), 'invalid_transition');
    expectProblem(await api('POST', `/v1/payments/${paymentId}/void`, { token: apiKey, key: uuidv7() }), 'invalid_transition');
    expect((await api('GET', `/v1/payments/${paymentId}`, { token: apiKey })).body).toEqual(before.body);
  });
});

describe('pay and expiry racing', () => {
  it('end the order exactly once: paid with its stock sold, or expired with its stock released and no money moved', async () => {
    for (let round = 0; round < 4; round += 1) {
      const buyer = await shopper(5_000);
      const variant = await newVariant(api, apiKey, clientId, { on_hand: 2 });
      const opened = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
      const [paid] = await Promise.all([
        payForOrder(api, buyer.token, opened.body.id),
        (async () => {
          clock.advance(900_001);
          await platform.scheduler.run('ordersExpire');
        })(),
      ]);
      await platform.scheduler.run('ordersExpire');
      const final = (await api('GET', `/v1/orders/${opened.body.id}`, { token: buyer.token })).body;
      const balance = (await api('GET', `/v1/users/${buyer.id}/balances`, { token: apiKey })).body.available;
      if (final.status === 'paid') {
        expect(paid.status, paid.text).toBe(200);
        expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 1, reserved: 0 });
        expect(balance).toBe(5_000 - 1_500);
      } else {
        expect(final.status).toBe('expired');
        expectProblem(paid, 'invalid_transition');
        expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 2, reserved: 0 });
        expect(balance).toBe(5_000);
      }
    }
  });
});

describe('expiry', () => {
  it('releases an unpaid order once its hold passes, exactly once with the worker run twice at the same moment, and refuses paying it even before the sweep', async () => {
    const buyer = await shopper(5_000);
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 5 });
    const aging = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 2 }]);
    const late = await placeOrder(api, buyer.token, clientId, [{ variant_id: variant.id, quantity: 1 }]);
    await platform.scheduler.run('ordersExpire');
    expect((await api('GET', `/v1/orders/${aging.body.id}`, { token: buyer.token })).body.status).toBe('open');

    clock.advance(900_001);
    // Before any sweep: paying after expires_at moves nothing.
    expectProblem(await payForOrder(api, buyer.token, late.body.id), 'invalid_transition');
    expect((await api('GET', `/v1/users/${buyer.id}/balances`, { token: apiKey })).body.available).toBe(5_000);

    await Promise.all([platform.scheduler.run('ordersExpire'), platform.scheduler.run('ordersExpire')]);
    for (const id of [aging.body.id, late.body.id]) expect((await api('GET', `/v1/orders/${id}`, { token: buyer.token })).body.status).toBe('expired');
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 5, reserved: 0 });
    const releases = (await stockMovements(api, apiKey, clientId, variant.id)).filter((m) => m.kind === 'release');
    expect(releases.map((m) => m.order_id).sort()).toEqual([aging.body.id, late.body.id].sort());
    const events = await api('GET', '/v1/webhook_events?limit=100', { token: apiKey });
    const expired = events.body.data.filter((e: { type: string; data: { order: { id: string } } }) => e.type === 'order.expired' && [aging.body.id, late.body.id].includes(e.data.order.id));
    expect(expired).toHaveLength(2);
  });
});
