import { type DocumentClient } from '../../shared/aws/dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { loadHandler } from '../../local/gateway';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { LedgerClient } from '../../shared/ledger-client/client';
import type { LedgerOperations } from '../../shared/ledger-client/loader';
import type { Transaction } from '../../shared/ledger-client/contract';
import { walletRuntime } from '../../shared/runtime/wallet';
import { chargeDueSubscriptions } from '../../shared/wallet/subscriptions/billing';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { fundUser } from '../support/money';
import { startTestPlatform } from '../support/platform';
import { balancesOf, createTenant, fundedUsers, type TenantOfTest } from '../support/tenants';
import { walletDeps, walletLedgerClient } from '../support/wallet';

/**
 * Subscriptions over HTTP on a clock the test moves: subscribe from Explore with a consumer token
 * (the first period charged at once), later periods charged by the scheduled worker exactly once
 * even when it runs twice at once, dunning to paused, a retry within a minute of the payer being
 * credited, pause, resume and cancel, and a cancel or pause racing a charge the ledger has posted.
 */

const DAY = 86_400_000;
// Near real time: the sandbox top-up processor signs its confirmations with the real clock.
const clock = new ManualClock(new Date());
let platform: Platform;
let base: string;
const api = apiClient(() => base);
let documents: DocumentClient;
let ledger: LedgerClient;
let tenantId: string;
let apiKey: string;
let tenantOfTest: TenantOfTest;
const subscriber = fundedUsers(() => tenantOfTest, { prefix: 'sub', scopes: ['subscriptions:read', 'subscriptions:write', 'balances:read', 'transfers:write'] });
let clientId: string;
let plan: string;

/**
 * What the billing worker meets after the ledger posted one subscription's charge and before the
 * worker commits it: a call over HTTP (a cancel racing it), or a crash. The worker runs in this
 * process, so the hook sits on the ledger it posts through; every other handler is the real one.
 */
let afterPosting: { subscriptionId: string; then: () => Promise<void> } | undefined;

function racingLedger(ledger: LedgerOperations): LedgerOperations {
  return new Proxy(ledger, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (name !== 'post' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<LedgerOperations['post']>) => {
        const posted = await target.post(...args);
        const hook = afterPosting;
        if (hook && args[1].reference_id === hook.subscriptionId) {
          afterPosting = undefined;
          await hook.then();
        }
        return posted;
      };
    },
  });
}

const racingBilling = async () => {
  const runtime = walletRuntime();
  return chargeDueSubscriptions({ ...runtime, ledger: () => racingLedger(runtime.ledger()) });
};

beforeAll(async () => {
  platform = await startTestPlatform({ clock, handlerFor: async (entry) => (entry === 'subscriptions/charge-due' ? racingBilling : loadHandler(entry)) });
  base = platform.urls.public;
  documents = localDocumentClient(platform.dynamodbEndpoint);
  ledger = walletLedgerClient(platform);
  const platformStaff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, platformStaff, 'Subscriptions');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  tenantOfTest = { platform, api, tenantId, apiKey };
  expect((await api('PUT', '/v1/fee_plan', { token: apiKey, body: { subscription: { bps: 200, flat: 0, min_fee: 0 }, commission: { bps: 500, flat: 0, min_fee: 0 } } })).status).toBe(200);
  clientId = (await clientOf(base, apiKey)).id;
  plan = await offering({ kind: 'plan', title: 'Weekly box', amount: 1_000, interval: 'weekly', status: 'published' });
});

afterAll(async () => {
  await platform?.stop();
});

async function offering(body: Record<string, unknown>, client = clientId) {
  const created = await api('POST', `/v1/clients/${client}/offerings`, { token: apiKey, body });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}


const subscribe = (token: string, offeringId = plan, key = uuidv7()) => api('POST', `/v1/explore/offerings/${offeringId}/subscribe`, { token, key });
const readSubscription = async (id: string) => (await api('GET', `/v1/subscriptions/${id}`, { token: apiKey })).body;
const billDue = () => platform.scheduler.run('subscriptionsChargeDue');
async function eventsFor(id: string, type: string) {
  const found = [];
  let cursor: string | null = null;
  do {
    const page: { data: { type: string; data: { subscription?: { id: string } } }[]; next_cursor: string | null } = (
      await api('GET', `/v1/webhook_events?type=${type}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: apiKey })
    ).body;
    found.push(...page.data.filter((e) => e.type === type && e.data.subscription?.id === id));
    cursor = page.next_cursor;
  } while (cursor);
  return found as any[];
}

/** The ledger's postings for a subscription's charges. */
async function subscriptionPostings(subscriptionId: string): Promise<Transaction[]> {
  const tenant = await getTenantRecord(walletDeps(platform, documents), tenantId);
  const found: Transaction[] = [];
  let cursor: string | undefined;
  do {
    const page = await ledger.listTransactions(tenant.ledger_id, { type: 'subscription', limit: 100, cursor });
    found.push(...page.data.filter((t) => t.metadata.subscription_id === subscriptionId));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return found;
}

/**
 * What a payer and a merchant depend on: every charge the ledger posted is one the wallet
 * recorded (a `subscription.charged` naming that ledger transaction, and counted in periods_charged),
 * and nothing else. Answers the periods charged.
 */
async function expectChargesRecorded(subscriptionId: string): Promise<string[]> {
  const posted = await subscriptionPostings(subscriptionId);
  const recorded = await eventsFor(subscriptionId, 'subscription.charged');
  expect(recorded.map((e) => e.data.charge.ledger_transaction_id).sort()).toEqual(posted.map((t) => t.id).sort());
  expect((await readSubscription(subscriptionId)).periods_charged).toBe(posted.length);
  return posted.map((t) => t.metadata.period!).sort();
}

describe('subscribing', () => {
  it('charges the first period at once with the fee and the commission fixed at signup, and answers a retry byte for byte', async () => {
    const payer = await subscriber(5_000);
    const key = uuidv7();
    const first = await subscribe(payer.token, plan, key);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ status: 'active', user_id: payer.id, client_id: clientId, offering_id: plan, plan_name: 'Weekly box', amount: 1_000, commission: 50, interval: 'weekly', periods_charged: 1, retry_count: 0 });
    expect(new Date(first.body.next_charge_at).getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(4_000);
    expect(await eventsFor(first.body.id, 'subscription.charged')).toHaveLength(1);

    const replay = await subscribe(payer.token, plan, key);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await offering({ kind: 'plan', title: 'Monthly', amount: 500, interval: 'monthly', status: 'published' });
    expectProblem(await subscribe(payer.token, other, key), 'idempotency_key_reuse');
    expectProblem(await subscribe(payer.token, plan, 'k'.repeat(201)), 'invalid_request');
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(4_000);

    const own = await api('GET', '/v1/subscriptions', { token: payer.token });
    expect(own.body.data.map((s: { id: string }) => s.id)).toEqual([first.body.id]);
    const byUser = await api('GET', `/v1/subscriptions?user_id=${payer.id}&status=active`, { token: apiKey });
    expect(byUser.body.data.map((s: { id: string }) => s.id)).toEqual([first.body.id]);
  });

  it('refuses another user\'s Idempotency-Key with idempotency_key_reuse: never answers with the first user\'s subscription', async () => {
    const [first, second] = [await subscriber(5_000), await subscriber(5_000)];
    const key = uuidv7();
    const mine = await subscribe(first.token, plan, key);
    expect(mine.status, mine.text).toBe(201);

    const theirs = await subscribe(second.token, plan, key);
    expectProblem(theirs, 'idempotency_key_reuse');
    expect(theirs.text).not.toContain(mine.body.id);
    expect((await api('GET', '/v1/subscriptions', { token: second.token })).body.data).toEqual([]);
    expect((await balancesOf(api, second.id, apiKey)).available).toBe(5_000);
    // The key is still the first user's, answered byte for byte.
    expect((await subscribe(first.token, plan, key)).text).toBe(mine.text);
  });

  it('refuses what is not a subscription: an API key, an item, a draft or a hidden client\'s plan, a payer without the money', async () => {
    const payer = await subscriber(500);
    expectProblem(await subscribe(apiKey), 'consumer_token_required');
    expectProblem(await subscribe(payer.token, await offering({ title: 'Mug', status: 'published', variants: [{ sku: `M-${uuidv7().slice(-8)}`, amount: 5 }] })), 'not_a_plan');
    expectProblem(await subscribe(payer.token, await offering({ kind: 'plan', title: 'Draft', amount: 5, interval: 'weekly' })), 'offering_not_found');
    const hidden = await clientOf(base, apiKey);
    const hiddenPlan = await offering({ kind: 'plan', title: 'Hidden', amount: 5, interval: 'weekly', status: 'published' }, hidden.id);
    await api('POST', `/v1/platform/clients/${hidden.id}/hide`, { token: await staffToken(platform, { role: 'platform' }) });
    expectProblem(await subscribe(payer.token, hiddenPlan), 'offering_not_found');
    // The first charge refused: nothing is created.
    expectProblem(await subscribe(payer.token), 'insufficient_funds');
    expect((await api('GET', '/v1/subscriptions', { token: payer.token })).body.data).toEqual([]);
  });
});

describe('a top-up to a past-due payer', () => {
  it('gets the subscription retried within a minute', async () => {
    const payer = await subscriber(1_000);
    const subscription = (await subscribe(payer.token)).body;
    // Past due without moving the clock far from real time: resuming charges at once, and fails.
    await api('POST', `/v1/subscriptions/${subscription.id}/pause`, { token: apiKey });
    await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey });
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'past_due', retry_count: 1 });
    const topup = await api('POST', '/v1/topups', { token: apiKey, key: uuidv7(), body: { user_id: payer.id, amount: 3_000, currency: 'USD', sandbox_outcome: 'succeed' } });
    expect(topup.status, topup.text).toBe(201);
    // The sandbox processor confirms after a queue delay, through the signed inbound webhook.
    clock.advance(2_000);
    for (let i = 0; i < 50 && ((await balancesOf(api, payer.id, apiKey)).available) !== 3_000; i += 1) {
      await platform.queues.drain();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(3_000);
    await platform.streams!.settle();
    clock.advance(60_000);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'active', retry_count: 0, periods_charged: 2 });
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(2_000);
  });
});

describe('billing', () => {
  it('charges each later period once, even with the worker running twice at once, at the price fixed at signup', async () => {
    const payer = await subscriber(10_000);
    const own = await offering({ kind: 'plan', title: 'Weekly box', amount: 1_000, interval: 'weekly', status: 'published' });
    const subscription = (await subscribe(payer.token, own)).body;
    await api('PATCH', `/v1/clients/${clientId}/offerings/${own}`, { token: apiKey, body: { amount: 9_999 } });
    for (let period = 2; period <= 3; period += 1) {
      clock.advance(7 * DAY);
      await Promise.all([billDue(), billDue()]);
      await billDue();
      expect(await readSubscription(subscription.id)).toMatchObject({ periods_charged: period, status: 'active', amount: 1_000 });
    }
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(7_000);
    expect(await eventsFor(subscription.id, 'subscription.charged')).toHaveLength(3);
    const tenant = await getTenantRecord(walletDeps(platform, documents), tenantId);
    const charges = (await ledger.listTransactions(tenant.ledger_id, { limit: 100 })).data.filter((t) => t.type === 'subscription' && t.metadata.subscription_id === subscription.id);
    expect(charges.map((t) => t.metadata.period).sort()).toEqual(['0', '1', '2']);
  });

  it('retries a refused charge on the dunning schedule, then pauses it', async () => {
    const payer = await subscriber(1_000);
    const subscription = (await subscribe(payer.token)).body;
    clock.advance(7 * DAY);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'past_due', retry_count: 1, periods_charged: 1 });
    for (const [days, tries] of [[1, 2], [2, 3]] as const) {
      clock.advance(days * DAY);
      await billDue();
      expect(await readSubscription(subscription.id)).toMatchObject({ status: 'past_due', retry_count: tries });
    }
    clock.advance(4 * DAY);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'paused', pause_reason: 'dunning_exhausted', next_charge_at: null });
    expect(await eventsFor(subscription.id, 'subscription.retry_scheduled')).toHaveLength(3);
    expect(await eventsFor(subscription.id, 'subscription.paused')).toHaveLength(1);
    clock.advance(30 * DAY);
    await billDue();
    expect((await readSubscription(subscription.id)).periods_charged).toBe(1);
  });

  it('retries within a minute of the payer being credited, not at the scheduled retry', async () => {
    const payer = await subscriber(1_000);
    const friend = await subscriber(5_000);
    const subscription = (await subscribe(payer.token)).body;
    clock.advance(7 * DAY);
    await billDue();
    expect((await readSubscription(subscription.id)).status).toBe('past_due');
    // User tokens live 15 minutes and the clock moved a week: the tenant's key sends.
    const sent = await api('POST', '/v1/transfers', { token: apiKey, key: uuidv7(), body: { from_user_id: friend.id, to_user_id: payer.id, amount: 2_000 } });
    expect(sent.status, sent.text).toBe(201);
    await platform.streams!.settle();
    clock.advance(60_000);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'active', retry_count: 0, periods_charged: 2 });
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(1_000);
  });
});

describe('managing', () => {
  it('pauses (nothing charged), resumes (the current period charged at once, billing from then) and cancels (nothing after)', async () => {
    const payer = await subscriber(10_000);
    const subscription = (await subscribe(payer.token)).body;
    const paused = await api('POST', `/v1/subscriptions/${subscription.id}/pause`, { token: payer.token });
    expect(paused.body).toMatchObject({ status: 'paused', pause_reason: 'requested', next_charge_at: null });
    clock.advance(14 * DAY);
    await billDue();
    expect((await readSubscription(subscription.id)).periods_charged).toBe(1);

    const resumed = await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey });
    expect(resumed.body).toMatchObject({ status: 'active', periods_charged: 2 });
    expect(new Date(resumed.body.next_charge_at).getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect(await eventsFor(subscription.id, 'subscription.resumed')).toHaveLength(1);

    const canceled = await api('POST', `/v1/subscriptions/${subscription.id}/cancel`, { token: apiKey, body: {} });
    expect(canceled.body).toMatchObject({ status: 'canceled', next_charge_at: null });
    clock.advance(7 * DAY);
    await billDue();
    expect((await readSubscription(subscription.id)).periods_charged).toBe(2);
    expectProblem(await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey }), 'invalid_transition');
    expect(await eventsFor(subscription.id, 'subscription.canceled')).toHaveLength(1);
  });

  it('cancels at the period\'s end: the paid period runs out and nothing more is charged', async () => {
    const payer = await subscriber(10_000);
    const subscription = (await subscribe(payer.token)).body;
    const scheduled = await api('POST', `/v1/subscriptions/${subscription.id}/cancel`, { token: payer.token, body: { at_period_end: true } });
    expect(scheduled.body).toMatchObject({ status: 'active', cancel_at_period_end: true });
    clock.advance(7 * DAY);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'canceled', periods_charged: 1 });
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(9_000);
    const stranger = await subscriber(0);
    expectProblem(await api('GET', `/v1/subscriptions/${subscription.id}`, { token: stranger.token }), 'not_found');
  });
});

describe('a change racing a charge the ledger has posted', () => {
  it.each(['cancel', 'pause'] as const)('a %s landing between the posting and its record comes after the charge: the charge is recorded', async (change) => {
    const payer = await subscriber(10_000);
    const subscription = (await subscribe(payer.token)).body;
    clock.advance(7 * DAY);
    let raced: { status: number; body: any } | undefined;
    afterPosting = {
      subscriptionId: subscription.id,
      then: async () => {
        raced = await api('POST', `/v1/subscriptions/${subscription.id}/${change}`, { token: apiKey, ...(change === 'cancel' ? { body: {} } : {}) });
      },
    };
    await billDue();
    expect(raced?.status).toBe(200);
    const status = change === 'cancel' ? 'canceled' : 'paused';
    // Ordered after the charge: the change answers, and its event carries, the period charged.
    expect(raced?.body).toMatchObject({ status, periods_charged: 2, next_charge_at: null });
    expect(await readSubscription(subscription.id)).toMatchObject({ status, periods_charged: 2, next_charge_at: null });
    expect(await expectChargesRecorded(subscription.id)).toEqual(['0', '1']);
    expect((await eventsFor(subscription.id, `subscription.${status}`)).map((e) => e.data.subscription.periods_charged)).toEqual([2]);
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(8_000);
    // Nothing is left for the next run: no second charge, no second record.
    await billDue();
    expect(await expectChargesRecorded(subscription.id)).toEqual(['0', '1']);
  });

  it('a cancel after a crash between the posting and its record finishes the charge first, under the key the ledger posted', async () => {
    const payer = await subscriber(10_000);
    const subscription = (await subscribe(payer.token)).body;
    clock.advance(7 * DAY);
    afterPosting = { subscriptionId: subscription.id, then: () => Promise.reject(new Error('crashed after the ledger posting')) };
    await billDue();
    expect(await subscriptionPostings(subscription.id)).toHaveLength(2);

    const canceled = await api('POST', `/v1/subscriptions/${subscription.id}/cancel`, { token: apiKey, body: {} });
    expect(canceled.body).toMatchObject({ status: 'canceled', periods_charged: 2 });
    expect(await expectChargesRecorded(subscription.id)).toEqual(['0', '1']);
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(8_000);
  });
});

describe('resuming', () => {
  it('charges under a key of its own: a payer refused before the pause and funded since is charged, not refused again from the ledger\'s memory', async () => {
    const payer = await subscriber(1_000);
    const subscription = (await subscribe(payer.token)).body;
    clock.advance(7 * DAY);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'past_due', retry_count: 1 });
    expect((await api('POST', `/v1/subscriptions/${subscription.id}/pause`, { token: apiKey })).body.status).toBe('paused');
    await fundUser(platform, tenantId, payer.id, 3_000);

    const resumed = await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey });
    expect(resumed.body).toMatchObject({ status: 'active', retry_count: 0, periods_charged: 2 });
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(2_000);
    expect(await expectChargesRecorded(subscription.id)).toEqual(['0', '1']);
  });

  it('starts dunning again from its first try', async () => {
    const payer = await subscriber(1_000);
    const subscription = (await subscribe(payer.token)).body;
    await api('POST', `/v1/subscriptions/${subscription.id}/pause`, { token: apiKey });
    expect((await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey })).body).toMatchObject({ status: 'past_due', retry_count: 1 });
    for (const [days, tries] of [[1, 2], [2, 3]] as const) {
      clock.advance(days * DAY);
      await billDue();
      expect(await readSubscription(subscription.id)).toMatchObject({ status: 'past_due', retry_count: tries });
    }
    clock.advance(4 * DAY);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'paused', pause_reason: 'dunning_exhausted', retry_count: 4 });
    // Resumed again (still without the money): a fresh first try, on a key of its own.
    expect((await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey })).body).toMatchObject({ status: 'past_due', retry_count: 1, periods_charged: 1 });
    expect(await expectChargesRecorded(subscription.id)).toEqual(['0']);
  });

  it('a subscription set to cancel at the period\'s end: charges the current period at once, then cancels at the end of that period', async () => {
    const payer = await subscriber(10_000);
    const subscription = (await subscribe(payer.token)).body;
    await api('POST', `/v1/subscriptions/${subscription.id}/cancel`, { token: payer.token, body: { at_period_end: true } });
    expect((await api('POST', `/v1/subscriptions/${subscription.id}/pause`, { token: payer.token })).body).toMatchObject({ status: 'paused', cancel_at_period_end: true });
    clock.advance(3 * DAY);

    const resumed = await api('POST', `/v1/subscriptions/${subscription.id}/resume`, { token: apiKey });
    expect(resumed.body).toMatchObject({ status: 'active', cancel_at_period_end: true, periods_charged: 2 });
    expect(new Date(resumed.body.next_charge_at).getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect(await eventsFor(subscription.id, 'subscription.canceled')).toEqual([]);
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(8_000);

    clock.advance(7 * DAY);
    await billDue();
    expect(await readSubscription(subscription.id)).toMatchObject({ status: 'canceled', periods_charged: 2, next_charge_at: null });
    expect(await eventsFor(subscription.id, 'subscription.canceled')).toHaveLength(1);
    expect(await expectChargesRecorded(subscription.id)).toEqual(['0', '1']);
    expect((await balancesOf(api, payer.id, apiKey)).available).toBe(8_000);
  });
});
