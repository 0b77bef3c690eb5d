import { apiClient } from '../support/http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { apiKeyFor, staffToken } from '../support/credentials';
import { call, startTestPlatform } from '../support/platform';

/**
 * Hold expiry with an injected clock: the whole platform runs on a clock the test moves, so an
 * authorization ages past its hold without sleeping, and the scheduled worker releases it once.
 */

const clock = new ManualClock(new Date());
let platform: Platform;
let key: string;
const api = apiClient(() => platform.urls.public, () => key);

beforeAll(async () => {
  platform = await startTestPlatform({ clock, env: { PAYMENT_HOLD_SECONDS: '3600' } });
  const operator = await staffToken(platform, { role: 'platform' });
  const tenant = await call(platform.urls.public, 'POST', '/v1/tenants', { token: operator, body: { name: 'Holds', currency: 'USD' } });
  key = await apiKeyFor(platform, tenant.body.id, [...TENANT_SCOPES], { env: 'sandbox' });
});
afterAll(() => platform?.stop());

it('releases an authorization whose hold has passed and emits payment.expired exactly once', async () => {
  const payer = (await api('POST', '/v1/users', { body: { external_id: 'holder' }, key: uuidv7() })).body.id as string;
  await api('POST', '/v1/topups', { body: { user_id: payer, amount: 5_000, currency: 'USD', sandbox_outcome: 'succeed' }, key: uuidv7() });
  clock.advance(2_000); // the sandbox processor confirms after a queue delay
  for (let i = 0; i < 50 && (await api('GET', `/v1/users/${payer}/balances`)).body.available !== 5_000; i += 1) {
    await platform.queues.drain();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const merchant = (await api('POST', '/v1/merchants', { body: { name: 'Hotel' }, key: uuidv7() })).body.id as string;
  const authorized = await api('POST', '/v1/payments', { body: { user_id: payer, merchant_id: merchant, amount: 4_000, currency: 'USD', capture: false }, key: uuidv7() });
  expect(authorized.body.status, authorized.text).toBe('authorized');
  expect(Date.parse(authorized.body.hold_expires_at) - Date.parse(authorized.body.created_at)).toBe(3_600_000);

  await platform.scheduler.run('paymentsExpireHolds');
  expect((await api('GET', `/v1/payments/${authorized.body.id}`)).body.status).toBe('authorized');

  clock.advance(3_601_000);
  await platform.scheduler.run('paymentsExpireHolds');
  await platform.scheduler.run('paymentsExpireHolds');
  expect((await api('GET', `/v1/payments/${authorized.body.id}`)).body.status).toBe('expired');
  expect((await api('GET', `/v1/users/${payer}/balances`)).body).toMatchObject({ available: 5_000, pending: 0 });
  const events = await api('GET', '/v1/webhook_events?type=payment.expired');
  expect(events.body.data.filter((e: { data: { payment: { id: string } } }) => e.data.payment.id === authorized.body.id)).toHaveLength(1);
  expect((await api('POST', `/v1/payments/${authorized.body.id}/capture`, { body: {}, key: uuidv7() })).body.code).toBe('invalid_transition');
  expect((await api('POST', `/v1/payments/${authorized.body.id}/void`, { body: {}, key: uuidv7() })).body.code).toBe('invalid_transition');
});
