import { apiClient } from '../support/http';
import Stripe from 'stripe';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { uuidv7 } from '../../shared/kernel/ids';
import { apiKeyFor, staffToken } from '../support/credentials';
import { call, startTestPlatform } from '../support/platform';
import { startReceiver, type Receiver } from '../integration/webhooks-receiver';
import { until } from '../support/time';

/**
 * Issue 7's walk-through as a client does it: a webhook endpoint on a local receiver, a user funded
 * through the sandbox processor, a merchant, an authorization, a partial capture with fee and
 * commission, a partial refund. Every step's event arrives signed, and the balances of payer,
 * merchant and tenant revenue add up with the ledger netting to zero.
 */

const stripe = new Stripe('sk_test_unused');
let platform: Platform;
let receiver: Receiver;
let key: string;
const api = apiClient(() => platform.urls.public, () => key);

beforeAll(async () => {
  platform = await startTestPlatform();
  receiver = await startReceiver();
  const operator = await staffToken(platform, { role: 'platform' });
  const tenant = await call(platform.urls.public, 'POST', '/v1/tenants', { token: operator, body: { name: 'Shop street', currency: 'USD' } });
  key = await apiKeyFor(platform, tenant.body.id, [...TENANT_SCOPES], { env: 'sandbox' });
});

afterAll(async () => {
  await receiver?.close();
  await platform?.stop();
});

it('authorizes, captures part, refunds part, delivers each event signed, and the money adds up', async () => {
  expect((await api('PUT', '/v1/fee_plan', { body: { payment: { bps: 100, flat: 0, min_fee: 0 }, commission: { bps: 500, flat: 0, min_fee: 0 } } })).status).toBe(200);
  const endpoint = await api('POST', '/v1/webhook_endpoints', { body: { url: receiver.route('/hooks'), event_filters: ['payment.*', 'refund.*'] } });
  expect(endpoint.status, endpoint.text).toBe(201);
  const secret = endpoint.body.secret as string;

  const payer = (await api('POST', '/v1/users', { body: { external_id: 'payer' } })).body.id as string;
  const topup = await api('POST', '/v1/topups', { body: { user_id: payer, amount: 10_000, currency: 'USD', sandbox_outcome: 'succeed' }, key: uuidv7() });
  expect(topup.status, topup.text).toBe(201);
  await until(async () => {
    await platform.queues.drain();
    return (await api('GET', `/v1/users/${payer}/balances`)).body.available === 10_000;
  }, 15_000, 'the top-up to be credited');

  const merchant = (await api('POST', '/v1/merchants', { body: { name: 'Corner books' } })).body.id as string;
  const authorized = await api('POST', '/v1/payments', { body: { user_id: payer, merchant_id: merchant, amount: 8_000, currency: 'USD', capture: false }, key: uuidv7() });
  expect(authorized.body.status, authorized.text).toBe('authorized');
  expect((await api('GET', `/v1/users/${payer}/balances`)).body).toMatchObject({ available: 2_000, pending: 8_000, posted: 10_000 });

  const captured = await api('POST', `/v1/payments/${authorized.body.id}/capture`, { body: { amount: 6_000 }, key: uuidv7() });
  expect(captured.body).toMatchObject({ status: 'captured', captured_amount: 6_000, fee: 60, commission: 300 });
  const refund = await api('POST', '/v1/refunds', { body: { payment_id: authorized.body.id, amount: 2_000, reason: 'one book returned' }, key: uuidv7() });
  expect(refund.status, refund.text).toBe(201);
  expect((await api('GET', `/v1/payments/${authorized.body.id}`)).body.status).toBe('partially_refunded');

  // Every step's event, delivered to the receiver and verified by an independent implementation.
  const types = () => receiver.requests('/hooks').map((r) => JSON.parse(r.body).type as string);
  await until(async () => {
    await platform.queues.drain();
    return ['payment.authorized', 'payment.captured', 'refund.completed'].every((t) => types().includes(t));
  }, 20_000, 'the three deliveries');
  for (const request of receiver.requests('/hooks')) {
    expect(() => stripe.webhooks.signature!.verifyHeader(request.body, String(request.headers['x-wallet-signature']), secret, 300)).not.toThrow();
    expect(request.headers['x-wallet-event-id']).toBe(JSON.parse(request.body).id);
  }

  // Payer: 10,000 - 6,000 captured + 2,000 refunded; the rest of the hold is released.
  expect((await api('GET', `/v1/users/${payer}/balances`)).body).toMatchObject({ available: 6_000, pending: 0, posted: 6_000 });
  const rows = (await api('GET', '/v1/ledger/summary')).body.rows as { owner_type: string; purpose: string; balance: number }[];
  const balance = (owner: string, purpose: string) => rows.filter((r) => r.owner_type === owner && r.purpose === purpose).reduce((sum, r) => sum + r.balance, 0);
  expect(balance('merchant', 'settlement')).toBe(6_000 - 60 - 300 - 2_000);
  expect(balance('tenant', 'revenue')).toBe(360);
  expect(rows.reduce((sum, r) => sum + r.balance, 0)).toBe(0);
});
