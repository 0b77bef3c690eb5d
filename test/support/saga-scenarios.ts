import { expect } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { clientOf } from './catalog';
import { userTokenFor } from './credentials';
import type { Api } from './http';
import { until } from './time';
import type { ManualClock } from '../../shared/kernel/clock';
import type { FaultBoundary } from '../../shared/wallet/saga/faults';

/**
 * The money sagas the fault harness (test/api/saga-faults.test.ts) crashes and races: for each, how
 * to make fresh entities for one run, the request that runs the saga, and the state changes that
 * can race it on the same entities. Every call goes over HTTP, as a client's would.
 */

export interface Shop {
  clientId: string;
  merchantId: string;
  /** A tracked item (backorders off) and a plan, both published. */
  offeringId: string;
  variantId: string;
  planId: string;
}

export interface World {
  platform: Platform;
  api: Api;
  tenantId: string;
  apiKey: string;
  shop: Shop;
  /** A user funded by a sandbox top-up: every run's users are paid from it by transfer, so every posting has its wallet record. */
  bankId: string;
  clock: ManualClock;
}

export interface SagaRequest {
  method: 'POST';
  path: string;
  body?: unknown;
  token?: string;
}

export interface Race {
  name: string;
  /**
   * The change, over HTTP; its answer is not asserted (a refusal is a fine outcome of a race). The
   * values it makes up (a new price, a new rate) come from `pick`, drawn by the harness's seed, so
   * `SAGA_FAULTS_SEED` replays them too.
   */
  run(world: World, entities: Entities, pick: Draw): Promise<unknown>;
}

/** An integer in [0, size), drawn from the run's interleaving. */
export type Draw = (size: number) => number;

/** A `Draw` that hands out `draws` in turn (again from the first once all are used). */
export function picker(draws: readonly number[]): Draw {
  let next = 0;
  return (size) => draws[next++ % draws.length]! % size;
}

export type Entities = Record<string, string>;

/** A saga a client request runs: retried by the client with the same key, or finished by the sweeper. */
export interface RequestSaga {
  kind: 'request';
  /** The saga operation the faults are injected into (the key record's `operation`). */
  operation: string;
  setup(world: World): Promise<Entities>;
  request(world: World, entities: Entities): SagaRequest;
  races: Race[];
}

/**
 * A saga the platform runs by itself, from a schedule (a period's charge, a hold's expiry) or a
 * queue (a processor's or a rail's confirmation): `worker` names the scheduled worker, or `queue`
 * says the saga rides a queued message (it is delivered again after its visibility timeout).
 */
export interface WorkerSaga {
  kind: 'worker';
  operation: string;
  worker: string | 'queue';
  /** The boundaries its code marks (a request saga's engine marks all four). */
  boundaries: FaultBoundary[];
  /** Makes the entities, then moves the clock until the worker has them due. */
  setup(world: World): Promise<Entities>;
  races: Race[];
}

export type Saga = RequestSaga | WorkerSaga;

const USD = 'USD';

/** A new user of the tenant paid `funds` from the bank by transfer. */
export async function paidUser(world: Pick<World, 'api' | 'bankId'>, funds: number): Promise<{ id: string; externalId: string }> {
  const externalId = `fault-${uuidv7()}`;
  const created = await world.api('POST', '/v1/users', { body: { external_id: externalId } });
  expect(created.status, created.text).toBe(201);
  if (funds > 0) {
    const paid = await world.api('POST', '/v1/transfers', { key: uuidv7(), body: { from_user_id: world.bankId, to_user_id: created.body.id, amount: funds } });
    expect(paid.status, paid.text).toBe(201);
  }
  return { id: created.body.id, externalId };
}

/** The bank: a user credited by a sandbox top-up the platform settles (a posting with its record, as reconciliation wants). */
export async function openBank(world: Pick<World, 'api' | 'clock'>, platform: Platform, amount: number): Promise<string> {
  const bank = await world.api('POST', '/v1/users', { body: { external_id: `bank-${uuidv7()}` } });
  expect(bank.status, bank.text).toBe(201);
  const topup = await world.api('POST', '/v1/topups', { key: uuidv7(), body: { user_id: bank.body.id, amount, currency: USD, sandbox_outcome: 'succeed' } });
  expect(topup.status, topup.text).toBe(201);
  await until(async () => {
    // The processor's confirmation is queued with a delay, on the platform's (moved) clock.
    world.clock.advance(1_000);
    await platform.queues.drain();
    return (await world.api('GET', `/v1/users/${bank.body.id}/balances`)).body.available > 0;
  }, 30_000, 'the bank\'s top-up to settle');
  return bank.body.id;
}

const consumer = async (world: World, externalId: string, scopes: string[]) => userTokenFor(world.platform, world.apiKey, externalId, scopes);

/** The shop's cashback rule replaced by another (disable, then a new one): a reward-rule edit racing a capture. */
async function replaceCashbackRule(world: World, pick: Draw): Promise<void> {
  const rules = await world.api('GET', `/v1/clients/${world.shop.clientId}/reward_rules`);
  for (const rule of rules.body.data ?? rules.body) {
    if (rule.kind === 'cashback' && rule.status === 'active') await world.api('POST', `/v1/clients/${world.shop.clientId}/reward_rules/${rule.id}/disable`);
  }
  await world.api('POST', `/v1/clients/${world.shop.clientId}/reward_rules`, { body: { kind: 'cashback', params: { bps: 100 + pick(900) } } });
}

const feePlanChange: Race = {
  name: 'fee plan changed',
  run: (world, _entities, pick) => world.api('PUT', '/v1/fee_plan', { body: { p2p: { bps: 100 + pick(200), flat: 0, min_fee: 0 }, payment: { bps: 150 + pick(100), flat: 0, min_fee: 0 } } }),
};

const ruleReplaced: Race = { name: 'cashback rule replaced', run: (world, _entities, pick) => replaceCashbackRule(world, pick) };

const stockSet: Race = {
  name: 'stock set by hand',
  run: (world, _entities, pick) =>
    world.api('POST', `/v1/clients/${world.shop.clientId}/offerings/${world.shop.offeringId}/variants/${world.shop.variantId}/stock`, { body: { set_to: 40 + pick(20), reason: 'count' } }),
};

const trackingToggled: Race = {
  name: 'track_inventory toggled off and on',
  run: async (world) => {
    const path = `/v1/clients/${world.shop.clientId}/offerings/${world.shop.offeringId}/variants/${world.shop.variantId}`;
    await world.api('PATCH', path, { body: { inventory: { track_inventory: false } } });
    await world.api('PATCH', path, { body: { inventory: { track_inventory: true } } });
  },
};

async function authorized(world: World, amount: number, capture: boolean): Promise<Entities> {
  const payer = await paidUser(world, 20_000);
  const paid = await world.api('POST', '/v1/payments', { key: uuidv7(), body: { user_id: payer.id, merchant_id: world.shop.merchantId, amount, currency: USD, capture } });
  expect(paid.status, paid.text).toBe(201);
  return { payer: payer.id, payerExternal: payer.externalId, payment: paid.body.id };
}

async function openShopOrder(world: World, quantity: number): Promise<Entities> {
  const shopper = await paidUser(world, 20_000);
  const order = await world.api('POST', '/v1/orders', { key: uuidv7(), body: { client_id: world.shop.clientId, user_id: shopper.id, lines: [{ variant_id: world.shop.variantId, quantity }] } });
  expect(order.status, order.text).toBe(201);
  return { shopper: shopper.id, shopperExternal: shopper.externalId, order: order.body.id };
}

export const SAGAS: Record<string, Saga> = {
  transfer: {
    kind: 'request',
    operation: 'transfer.create',
    setup: async (world) => ({ from: (await paidUser(world, 10_000)).id, to: (await paidUser(world, 0)).id }),
    request: (_world, e) => ({ method: 'POST', path: '/v1/transfers', body: { from_user_id: e.from, to_user_id: e.to, amount: 1_234 } }),
    races: [feePlanChange],
  },
  paymentCaptured: {
    kind: 'request',
    operation: 'payment.create',
    setup: async (world) => ({ payer: (await paidUser(world, 10_000)).id }),
    request: (world, e) => ({ method: 'POST', path: '/v1/payments', body: { user_id: e.payer, merchant_id: world.shop.merchantId, amount: 2_000, currency: USD } }),
    races: [feePlanChange, ruleReplaced],
  },
  paymentAuthorized: {
    kind: 'request',
    operation: 'payment.create',
    setup: async (world) => ({ payer: (await paidUser(world, 10_000)).id }),
    request: (world, e) => ({ method: 'POST', path: '/v1/payments', body: { user_id: e.payer, merchant_id: world.shop.merchantId, amount: 2_000, currency: USD, capture: false } }),
    races: [feePlanChange],
  },
  capture: {
    kind: 'request',
    operation: 'payment.capture',
    setup: (world) => authorized(world, 3_000, false),
    request: (_world, e) => ({ method: 'POST', path: `/v1/payments/${e.payment}/capture`, body: { amount: 2_500 } }),
    races: [ruleReplaced, { name: 'voided', run: (world, e) => world.api('POST', `/v1/payments/${e.payment}/void`, { key: uuidv7() }) }],
  },
  void: {
    kind: 'request',
    operation: 'payment.void',
    setup: (world) => authorized(world, 3_000, false),
    request: (_world, e) => ({ method: 'POST', path: `/v1/payments/${e.payment}/void` }),
    races: [{ name: 'captured', run: (world, e) => world.api('POST', `/v1/payments/${e.payment}/capture`, { key: uuidv7(), body: {} }) }],
  },
  refund: {
    kind: 'request',
    operation: 'refund.create',
    setup: (world) => authorized(world, 4_000, true),
    request: (_world, e) => ({ method: 'POST', path: '/v1/refunds', body: { payment_id: e.payment, amount: 1_000 } }),
    races: [
      { name: 'another refund', run: (world, e) => world.api('POST', '/v1/refunds', { key: uuidv7(), body: { payment_id: e.payment, amount: 2_500 } }) },
      {
        name: 'points converted',
        run: async (world, e) => world.api('POST', `/v1/users/${e.payer}/rewards/convert`, { token: await consumer(world, e.payerExternal!, ['rewards:convert']), key: uuidv7(), body: { points: 3_800 } }),
      },
    ],
  },
  orderPay: {
    kind: 'request',
    operation: 'order.pay',
    setup: (world) => openShopOrder(world, 2),
    request: (_world, e) => ({ method: 'POST', path: `/v1/orders/${e.order}/pay` }),
    races: [ruleReplaced, stockSet, trackingToggled, { name: 'canceled', run: (world, e) => world.api('POST', `/v1/orders/${e.order}/cancel`, { key: uuidv7() }) }],
  },
  orderCancel: {
    kind: 'request',
    operation: 'order.cancel',
    setup: (world) => openShopOrder(world, 1),
    request: (_world, e) => ({ method: 'POST', path: `/v1/orders/${e.order}/cancel` }),
    races: [trackingToggled, { name: 'paid', run: (world, e) => world.api('POST', `/v1/orders/${e.order}/pay`, { key: uuidv7() }) }],
  },
  orderCreate: {
    kind: 'request',
    operation: 'order.create',
    setup: async (world) => ({ shopper: (await paidUser(world, 0)).id }),
    request: (world, e) => ({ method: 'POST', path: '/v1/orders', body: { client_id: world.shop.clientId, user_id: e.shopper, lines: [{ variant_id: world.shop.variantId, quantity: 1 }] } }),
    races: [stockSet, trackingToggled],
  },
  subscribe: {
    kind: 'request',
    operation: 'subscription.create',
    setup: async (world) => {
      const subscriber = await paidUser(world, 10_000);
      return { subscriber: subscriber.id, token: await consumer(world, subscriber.externalId, ['subscriptions:write', 'subscriptions:read']) };
    },
    request: (world, e) => ({ method: 'POST', path: `/v1/explore/offerings/${world.shop.planId}/subscribe`, token: e.token }),
    races: [{ name: 'plan repriced', run: (world, _entities, pick) => world.api('PATCH', `/v1/clients/${world.shop.clientId}/offerings/${world.shop.planId}`, { body: { amount: 500 + pick(500) } }) }],
  },
  pointsConvert: {
    kind: 'request',
    operation: 'points.convert',
    setup: async (world) => {
      const earned = await authorized(world, 5_000, true);
      return { ...earned, token: await consumer(world, earned.payerExternal!, ['rewards:convert', 'rewards:read']) };
    },
    request: (_world, e) => ({ method: 'POST', path: `/v1/users/${e.payer}/rewards/convert`, body: { points: 1_000 }, token: e.token }),
    races: [{ name: 'rate changed', run: (world, _entities, pick) => world.api('PUT', '/v1/rewards/settings', { body: { points_commodity: 'PTS', conversion_rate: { points: 100, cash: 1 + pick(9) } } }) }],
  },
  marketingFund: {
    kind: 'request',
    operation: 'marketing.fund',
    setup: async () => ({}),
    request: (world) => ({ method: 'POST', path: `/v1/merchants/${world.shop.merchantId}/marketing_funds`, body: { amount: 100 } }),
    races: [{ name: 'another funding', run: (world) => world.api('POST', `/v1/merchants/${world.shop.merchantId}/marketing_funds`, { key: uuidv7(), body: { amount: 100 } }) }],
  },
  payout: {
    kind: 'request',
    operation: 'payout.create',
    setup: async () => ({}),
    request: (world) => ({ method: 'POST', path: '/v1/payouts', body: { merchant_id: world.shop.merchantId, amount: 200, currency: USD } }),
    races: [{ name: 'another payout', run: (world) => world.api('POST', '/v1/payouts', { key: uuidv7(), body: { merchant_id: world.shop.merchantId, amount: 300, currency: USD } }) }],
  },
  subscriptionCharge: {
    kind: 'worker',
    operation: 'subscription.charge',
    worker: 'subscriptionsChargeDue',
    boundaries: ['beforeLedger', 'afterLedger', 'afterCommit'],
    setup: async (world) => {
      const subscriber = await paidUser(world, 10_000);
      const token = await consumer(world, subscriber.externalId, ['subscriptions:write', 'subscriptions:read']);
      const subscribed = await world.api('POST', `/v1/explore/offerings/${world.shop.planId}/subscribe`, { token, key: uuidv7() });
      expect(subscribed.status, subscribed.text).toBe(201);
      world.clock.advance(Date.parse(subscribed.body.next_charge_at) - world.clock.now().getTime() + 1_000);
      return { subscription: subscribed.body.id, token };
    },
    races: [
      { name: 'canceled', run: (world, e) => world.api('POST', `/v1/subscriptions/${e.subscription}/cancel`, { body: {} }) },
      { name: 'paused', run: (world, e) => world.api('POST', `/v1/subscriptions/${e.subscription}/pause`) },
      { name: 'canceled at period end', run: (world, e) => world.api('POST', `/v1/subscriptions/${e.subscription}/cancel`, { body: { at_period_end: true } }) },
    ],
  },
  paymentExpire: {
    kind: 'worker',
    operation: 'payment.expire',
    worker: 'paymentsExpireHolds',
    boundaries: ['afterLedger'],
    setup: async (world) => {
      const held = await authorized(world, 1_500, false);
      const payment = await world.api('GET', `/v1/payments/${held.payment}`);
      world.clock.advance(Date.parse(payment.body.hold_expires_at) - world.clock.now().getTime() + 1_000);
      return held;
    },
    races: [
      { name: 'captured', run: (world, e) => world.api('POST', `/v1/payments/${e.payment}/capture`, { key: uuidv7(), body: {} }) },
      { name: 'voided', run: (world, e) => world.api('POST', `/v1/payments/${e.payment}/void`, { key: uuidv7() }) },
    ],
  },
  dunning: {
    kind: 'worker',
    operation: 'subscription.charge',
    worker: 'subscriptionsChargeDue',
    boundaries: ['beforeLedger', 'afterLedger', 'afterCommit'],
    setup: async (world) => {
      // Exactly one period's money: the next charge is refused, and dunning begins (or a credit racing it pays).
      // At the plan's price now: the subscribe scenario's race reprices the plan (500-999).
      const plan = await world.api('GET', `/v1/clients/${world.shop.clientId}/offerings/${world.shop.planId}`);
      expect(plan.status, plan.text).toBe(200);
      const subscriber = await paidUser(world, plan.body.amount);
      const token = await consumer(world, subscriber.externalId, ['subscriptions:write', 'subscriptions:read']);
      const subscribed = await world.api('POST', `/v1/explore/offerings/${world.shop.planId}/subscribe`, { token, key: uuidv7() });
      expect(subscribed.status, subscribed.text).toBe(201);
      world.clock.advance(Date.parse(subscribed.body.next_charge_at) - world.clock.now().getTime() + 1_000);
      return { subscription: subscribed.body.id, subscriber: subscriber.id };
    },
    races: [
      { name: 'payer credited', run: (world, e) => world.api('POST', '/v1/transfers', { key: uuidv7(), body: { from_user_id: world.bankId, to_user_id: e.subscriber, amount: 5_000 } }) },
      { name: 'canceled', run: (world, e) => world.api('POST', `/v1/subscriptions/${e.subscription}/cancel`, { body: {} }) },
    ],
  },
  topupSettle: {
    kind: 'worker',
    operation: 'topup.settle',
    worker: 'queue',
    boundaries: ['beforeLedger', 'afterLedger', 'beforeCommit', 'afterCommit'],
    setup: async (world) => {
      const payee = await paidUser(world, 0);
      const topup = await world.api('POST', '/v1/topups', { key: uuidv7(), body: { user_id: payee.id, amount: 2_500, currency: USD, sandbox_outcome: 'succeed' } });
      expect(topup.status, topup.text).toBe(201);
      return { payee: payee.id, topup: topup.body.id };
    },
    races: [{ name: 'payee pays at once', run: (world, e) => world.api('POST', '/v1/transfers', { key: uuidv7(), body: { from_user_id: e.payee, to_user_id: world.bankId, amount: 100 } }) }],
  },
  payoutSettle: {
    kind: 'worker',
    operation: 'payout.settle',
    worker: 'queue',
    boundaries: ['beforeLedger', 'afterLedger', 'beforeCommit', 'afterCommit'],
    setup: async (world) => {
      const payout = await world.api('POST', '/v1/payouts', { key: uuidv7(), body: { merchant_id: world.shop.merchantId, amount: 150, currency: USD } });
      expect(payout.status, payout.text).toBe(201);
      return { payout: payout.body.id };
    },
    races: [{ name: 'another payout', run: (world) => world.api('POST', '/v1/payouts', { key: uuidv7(), body: { merchant_id: world.shop.merchantId, amount: 120, currency: USD } }) }],
  },
  orderExpire: {
    kind: 'worker',
    operation: 'order.expire',
    worker: 'ordersExpire',
    boundaries: ['beforeCommit'],
    setup: async (world) => {
      const open = await openShopOrder(world, 1);
      const order = await world.api('GET', `/v1/orders/${open.order}`);
      world.clock.advance(Date.parse(order.body.expires_at) - world.clock.now().getTime() + 1_000);
      return open;
    },
    races: [trackingToggled, { name: 'paid', run: (world, e) => world.api('POST', `/v1/orders/${e.order}/pay`, { key: uuidv7() }) }],
  },
};

/** The shop every run pays: a client with a tracked item, a plan, cashback and points rules, and money in its merchant's marketing account. */
export async function openShop(world: Omit<World, 'shop'>): Promise<Shop> {
  const client = await clientOf(world.platform.urls.public, world.apiKey);
  const item = await world.api('POST', `/v1/clients/${client.id}/offerings`, {
    body: { title: 'Fault-tested item', status: 'published', variants: [{ sku: `FT-${uuidv7().slice(-10)}`, amount: 700, inventory: { on_hand: 1_000 } }] },
  });
  expect(item.status, item.text).toBe(201);
  const plan = await world.api('POST', `/v1/clients/${client.id}/offerings`, { body: { kind: 'plan', title: 'Fault-tested plan', amount: 900, interval: 'monthly', status: 'published' } });
  expect(plan.status, plan.text).toBe(201);
  const shop: Shop = { clientId: client.id, merchantId: client.merchantId, offeringId: item.body.id, variantId: item.body.variants[0].id, planId: plan.body.id };
  const settings = await world.api('PUT', '/v1/rewards/settings', { body: { points_commodity: 'PTS', conversion_rate: { points: 100, cash: 5 } } });
  expect(settings.status, settings.text).toBe(200);
  for (const body of [{ kind: 'cashback', params: { bps: 500 } }, { kind: 'accrual', params: { points: 1, per_amount: 1 } }]) {
    const rule = await world.api('POST', `/v1/clients/${client.id}/reward_rules`, { body });
    expect(rule.status, rule.text).toBe(201);
  }
  // Marketing money comes from settlement: a payment into the merchant first.
  const buyer = await paidUser(world, 200_000);
  expect((await world.api('POST', '/v1/payments', { key: uuidv7(), body: { user_id: buyer.id, merchant_id: client.merchantId, amount: 150_000, currency: USD } })).status).toBe(201);
  const funded = await world.api('POST', `/v1/merchants/${client.merchantId}/marketing_funds`, { key: uuidv7(), body: { amount: 100_000 } });
  expect(funded.status, funded.text).toBe(201);
  return shop;
}
