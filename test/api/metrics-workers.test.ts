import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { METRIC } from '../../shared/kernel/metrics';
import { walletRuntime } from '../../shared/runtime/wallet';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { chargeDueSubscriptions } from '../../shared/wallet/subscriptions/billing';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { captureEmf } from '../support/emf';
import { apiClient } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant, fundedUsers } from '../support/tenants';

/**
 * `METRICS=stdout`: the EMF lines of the order expiry and billing workers (and of the subscription
 * changes that charge), with the platform's clock moved by the test. As in test/api/saga-faults.test.ts,
 * the background queues and schedule are stopped and the test runs the scheduled workers itself,
 * so every point read here is one a run of the test's own wrote.
 */

const DAY = 86_400_000;
// Near real time: the platform's tokens are signed and checked on this clock.
const clock = new ManualClock(new Date());
const emf = captureEmf();
let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let apiKey: string;
let clientId: string;
let plan: string;
/** Every tenant and user id made here: none may be a dimension's value. */
const ids: string[] = [];

beforeAll(async () => {
  platform = await startTestPlatform({ clock, env: { METRICS: 'stdout' } });
  await platform.queues.stop();
  await platform.scheduler.stop();
  base = platform.urls.public;
  const staff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, staff, 'Worker metrics');
  ids.push(tenantId);
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  clientId = (await clientOf(base, apiKey)).id;
  const created = await api('POST', `/v1/clients/${clientId}/offerings`, { token: apiKey, body: { kind: 'plan', title: 'Weekly box', amount: 1_000, interval: 'weekly', status: 'published' } });
  expect(created.status, created.text).toBe(201);
  plan = created.body.id;
});

afterAll(async () => {
  await platform?.stop();
  // After the stop: a worker still running writes its points into the capture, not the run's output.
  emf.restore();
});

/** A new funded user, its id kept in `ids`. */
async function trackedUser(funds: number) {
  const made = await fundedUsers(() => ({ platform, api, tenantId, apiKey }), { prefix: 'metrics' })(funds);
  ids.push(made.id);
  return made;
}

/** A subscriber to the weekly plan of 1,000 (its first period charged at signup). */
async function subscribed(funds: number) {
  const payer = await trackedUser(funds);
  const token = await userTokenFor(platform, apiKey, payer.externalId, ['subscriptions:read', 'subscriptions:write']);
  const subscription = await api('POST', `/v1/explore/offerings/${plan}/subscribe`, { token, key: uuidv7() });
  expect(subscription.status, subscription.text).toBe(201);
  return { payer, id: subscription.body.id as string };
}

const read = async (path: string) => {
  const found = await api('GET', path, { token: apiKey });
  expect(found.status, found.text).toBe(200);
  return found.body;
};
const change = async (id: string, action: 'pause' | 'resume' | 'cancel', body?: unknown) => {
  const changed = await api('POST', `/v1/subscriptions/${id}/${action}`, { token: apiKey, body });
  expect(changed.status, changed.text).toBe(200);
  return changed.body;
};
const expireOrders = () => platform.scheduler.run('ordersExpire', clock.now()) as Promise<{ expired: number }>;
const bill = () => platform.scheduler.run('subscriptionsChargeDue', clock.now()) as Promise<Record<string, number>>;

const BASE = { service: 'wallet-platform', Stage: 'local' };
/** A metric's points as [value, unit, dimensions]. */
const written = (name: string) => emf.named(name).map((point) => [point.value, point.unit, point.dimensions]);
const count = (value: number, dimensions: Record<string, string> = {}) => [value, 'Count', { ...BASE, ...dimensions }];

describe('EMF metrics of the order expiry and billing workers (METRICS=stdout)', () => {
  it('OrderHoldsExpired: one point per expiry run that expired orders, their count, with only service and Stage', async () => {
    const item = await api('POST', `/v1/clients/${clientId}/offerings`, {
      token: apiKey,
      body: { title: 'Tee', status: 'published', variants: [{ sku: `T-${uuidv7().slice(-10)}`, amount: 100, inventory: { on_hand: 10 } }] },
    });
    expect(item.status, item.text).toBe(201);
    const shopper = await trackedUser(0);
    const orders: { id: string; expires_at: string }[] = [];
    for (const quantity of [1, 2]) {
      const opened = await api('POST', '/v1/orders', { token: apiKey, key: uuidv7(), body: { client_id: clientId, user_id: shopper.id, lines: [{ variant_id: item.body.variants[0].id, quantity }] } });
      expect(opened.status, opened.text).toBe(201);
      orders.push(opened.body);
    }
    // Not expired yet: the run expires nothing and writes nothing.
    expect(await expireOrders()).toEqual({ expired: 0 });
    expect(written(METRIC.orderHoldsExpired)).toEqual([]);

    clock.advance(Math.max(...orders.map((o) => Date.parse(o.expires_at))) - clock.now().getTime() + 1_000);
    expect(await expireOrders()).toEqual({ expired: 2 });
    for (const order of orders) expect((await read(`/v1/orders/${order.id}`)).status).toBe('expired');
    expect((await read(`/v1/clients/${clientId}/offerings/${item.body.id}`)).variants[0].inventory).toMatchObject({ on_hand: 10, reserved: 0 });
    expect(written(METRIC.orderHoldsExpired)).toEqual([count(2)]);

    // Nothing left to expire: no point.
    expect(await expireOrders()).toEqual({ expired: 0 });
    expect(written(METRIC.orderHoldsExpired)).toEqual([count(2)]);
  });

  it('SubscriptionCharges by Outcome: periods the billing worker charged (one point per run), a resume\'s charge, a cancel at the period\'s end', async () => {
    const [first, second] = [await subscribed(5_000), await subscribed(5_000)];
    // The first period is the signup's money operation, not the billing worker's.
    expect(written(METRIC.subscriptionCharges)).toEqual([]);
    expect(emf.named(METRIC.moneyCompleted, { Operation: 'subscription.create' })).toHaveLength(2);

    clock.advance(7 * DAY + 1_000);
    expect(await bill()).toMatchObject({ charged: 2, retry_scheduled: 0, paused: 0, canceled: 0 });
    expect(written(METRIC.subscriptionCharges)).toEqual([count(2, { Outcome: 'charged' })]);

    // A resume charges the current period at once, outside the worker.
    await change(first.id, 'pause');
    expect(await change(first.id, 'resume')).toMatchObject({ status: 'active', periods_charged: 3 });
    expect(written(METRIC.subscriptionCharges)).toEqual([count(2, { Outcome: 'charged' }), count(1, { Outcome: 'charged' })]);

    // At the next period: one charged, the other canceled as its subscriber asked.
    await change(second.id, 'cancel', { at_period_end: true });
    clock.advance(7 * DAY + 1_000);
    expect(await bill()).toMatchObject({ charged: 1, canceled: 1 });
    expect((await read(`/v1/subscriptions/${second.id}`)).status).toBe('canceled');
    expect(written(METRIC.subscriptionCharges)).toEqual([
      count(2, { Outcome: 'charged' }),
      count(1, { Outcome: 'charged' }),
      count(1, { Outcome: 'charged' }),
      count(1, { Outcome: 'canceled' }),
    ]);
    expect(written(METRIC.dunningOutcomes)).toEqual([]);
    // Nothing of this test's is due later.
    await change(first.id, 'cancel', {});
  });

  it('SubscriptionCharges: a charge a crashed billing run left posted and claimed counts once, when the pause that finishes it records it', async () => {
    const { id } = await subscribed(5_000);
    const before = written(METRIC.subscriptionCharges);
    clock.advance(7 * DAY + 1_000);
    // The worker dies after the ledger posted: the run writes no point (as a Lambda killed there).
    const crash = { afterLedger: () => { throw new Error('crashed after the ledger posting'); } };
    await expect(chargeDueSubscriptions(walletRuntime(), crash)).rejects.toThrow('crashed');
    expect(written(METRIC.subscriptionCharges)).toEqual(before);

    expect(await change(id, 'pause')).toMatchObject({ status: 'paused', periods_charged: 2 });
    expect(written(METRIC.subscriptionCharges)).toEqual([...before, count(1, { Outcome: 'charged' })]);
    expect(await bill()).toMatchObject({ charged: 0 });
    expect(written(METRIC.subscriptionCharges)).toEqual([...before, count(1, { Outcome: 'charged' })]);
    await change(id, 'cancel', {});
  });

  it('DunningOutcomes by Outcome: a charge refused for insufficient funds is retried on schedule, then paused; a resume refused starts again; a credit gets it charged', async () => {
    // Exactly the first period's money: the next charge is refused.
    const { payer, id } = await subscribed(1_000);
    const friend = await trackedUser(5_000);
    const charges = written(METRIC.subscriptionCharges).length;

    clock.advance(7 * DAY + 1_000);
    expect(await bill()).toMatchObject({ charged: 0, retry_scheduled: 1 });
    expect(await read(`/v1/subscriptions/${id}`)).toMatchObject({ status: 'past_due', retry_count: 1 });
    expect(written(METRIC.dunningOutcomes)).toEqual([count(1, { Outcome: 'retry_scheduled' })]);

    for (const days of [1, 2]) {
      clock.advance(days * DAY);
      expect(await bill()).toMatchObject({ retry_scheduled: 1 });
    }
    clock.advance(4 * DAY);
    expect(await bill()).toMatchObject({ paused: 1 });
    expect(await read(`/v1/subscriptions/${id}`)).toMatchObject({ status: 'paused', pause_reason: 'dunning_exhausted' });
    const exhausted = [...Array(3).fill(count(1, { Outcome: 'retry_scheduled' })), count(1, { Outcome: 'paused' })];
    expect(written(METRIC.dunningOutcomes)).toEqual(exhausted);

    // Resumed without the money: the resume's charge is refused, dunning starts from its first try.
    expect(await change(id, 'resume')).toMatchObject({ status: 'past_due', retry_count: 1 });
    expect(written(METRIC.dunningOutcomes)).toEqual([...exhausted, count(1, { Outcome: 'retry_scheduled' })]);

    // Credited, the payer is retried within a minute (the stream worker makes it due) and charged.
    const sent = await api('POST', '/v1/transfers', { token: apiKey, key: uuidv7(), body: { from_user_id: friend.id, to_user_id: payer.id, amount: 2_000 } });
    expect(sent.status, sent.text).toBe(201);
    await platform.streams!.settle();
    clock.advance(60_000);
    expect(await bill()).toMatchObject({ charged: 1 });
    expect(await read(`/v1/subscriptions/${id}`)).toMatchObject({ status: 'active', retry_count: 0 });
    expect(written(METRIC.subscriptionCharges).slice(charges)).toEqual([count(1, { Outcome: 'charged' })]);
    expect(written(METRIC.dunningOutcomes)).toHaveLength(exhausted.length + 1);
  });

  it('no point of this file carries a tenant or user id, or a dimension but the catalogue\'s', () => {
    const points = emf.points();
    expect(points.length).toBeGreaterThan(0);
    const allowed = new Set(['service', 'Stage', 'Route', 'StatusClass', 'Code', 'Operation', 'Call', 'Outcome', 'Reason']);
    for (const point of points) {
      for (const [name, value] of Object.entries(point.dimensions)) {
        expect(allowed, `${point.name}: ${name}`).toContain(name);
        expect(ids).not.toContain(value);
      }
    }
  });
});
