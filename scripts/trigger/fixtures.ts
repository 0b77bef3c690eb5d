import { randomUUID } from 'node:crypto';
import { ok } from '../../client/core';
import type { createWalletClient } from '../../client/wallet';
import { computeFee } from '../../shared/wallet/tenancy/fees';
import { workers } from '../../shared/workers';

/**
 * What `npm run trigger` builds its events from: the typed client (client/) with the demo tenant's
 * sandbox key, as an integrator would, and small steps every recipe shares (a funded user, a
 * merchant with settled money, an approved client with stock...). Every object is new, named
 * `trigger-…`, so a trigger never changes what the README's walkthrough made.
 */

export type WalletClient = ReturnType<typeof createWalletClient>;

export interface TriggerContext {
  wallet: WalletClient;
  currency: string;
  /** Runs a scheduled worker now, if the caller can (tests); otherwise the platform's own schedule runs it. */
  runScheduled?: (worker: string) => Promise<void>;
  /** Progress lines for the person watching. */
  say: (line: string) => void;
}

/** How long an event may take to show in the history once its recipe has done its part (generous: a busy laptop's workers lag). */
export const EVENT_WAIT_MS = 60_000;

/** What a recipe may say about its event: that it takes longer than EVENT_WAIT_MS to show. */
export interface RecipeOutcome {
  eventWithinMs: number;
}

export const tag = (what: string) => `trigger-${what}-${randomUUID().slice(0, 8)}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers a value, or fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(150);
  }
}

export async function newUser(ctx: TriggerContext, what = 'user'): Promise<{ id: string; external_id: string }> {
  return ok(ctx.wallet.POST('/v1/users', { body: { external_id: tag(what) } }));
}

export async function availableOf(ctx: TriggerContext, userId: string): Promise<number> {
  return (await ok(ctx.wallet.GET('/v1/users/{userId}/balances', { params: { path: { userId } } }))).available;
}

/** The tenant's p2p fee for an amount, by its published fee plan (the sender pays it on top). */
export async function transferFee(ctx: TriggerContext): Promise<(amount: number) => number> {
  const { p2p } = (await ok(ctx.wallet.GET('/v1/fee_plan'))).fees;
  const rule = { ...p2p, max_fee: p2p.max_fee ?? null };
  return (amount) => computeFee(rule, amount);
}

/** The most a user can send of `available`, the p2p fee on top (the fee never falls as the amount grows). */
export function mostSendable(available: number, fee: (amount: number) => number): number {
  let [fits, tooMuch] = [0, available + 1];
  while (tooMuch - fits > 1) {
    const amount = Math.floor((fits + tooMuch) / 2);
    if (amount + fee(amount) <= available) fits = amount;
    else tooMuch = amount;
  }
  return fits;
}

/** A top-up through the sandbox processor, and (for `succeed`) its confirmation. */
export async function topUp(ctx: TriggerContext, userId: string, amount: number, outcome: 'succeed' | 'decline' | 'mismatch' = 'succeed'): Promise<void> {
  const before = await availableOf(ctx, userId);
  await ok(ctx.wallet.POST('/v1/topups', { body: { user_id: userId, amount, currency: ctx.currency, sandbox_outcome: outcome } }));
  if (outcome === 'succeed') await until('the sandbox top-up to confirm', async () => ((await availableOf(ctx, userId)) >= before + amount ? true : undefined));
}

export async function fundedUser(ctx: TriggerContext, amount = 100_000, what = 'payer'): Promise<{ id: string; external_id: string }> {
  const user = await newUser(ctx, what);
  await topUp(ctx, user.id, amount);
  return user;
}

export async function userToken(ctx: TriggerContext, externalId: string, scopes: string[]): Promise<string> {
  return (await ok(ctx.wallet.POST('/v1/auth/user_tokens', { body: { user_external_id: externalId, scopes } }))).token;
}

export async function newMerchant(ctx: TriggerContext): Promise<string> {
  return (await ok(ctx.wallet.POST('/v1/merchants', { body: { name: tag('merchant') } }))).id;
}

export async function pay(ctx: TriggerContext, userId: string, merchantId: string, amount: number, capture = true) {
  return ok(ctx.wallet.POST('/v1/payments', { body: { user_id: userId, merchant_id: merchantId, amount, currency: ctx.currency, capture } }));
}

/** A merchant holding settled money (a captured payment to it), for payouts and marketing funds. */
export async function settledMerchant(ctx: TriggerContext, amount = 20_000): Promise<string> {
  const merchantId = await newMerchant(ctx);
  await pay(ctx, (await fundedUser(ctx, amount * 2)).id, merchantId, amount);
  return merchantId;
}

/** An approved client (the merchant's catalog profile) of a new merchant. */
export async function approvedClient(ctx: TriggerContext, merchantId?: string): Promise<{ clientId: string; merchantId: string }> {
  const merchant = merchantId ?? (await newMerchant(ctx));
  const alias = tag('shop');
  const client = await ok(ctx.wallet.POST('/v1/clients', { body: { merchant_id: merchant, org_alias: alias, display_name: alias, category: 'apparel' } }));
  await ok(ctx.wallet.POST('/v1/clients/{clientId}/approve', { params: { path: { clientId: client.id } } }));
  return { clientId: client.id, merchantId: merchant };
}

/** A published offering with one variant priced `amount`, `onHand` units in stock. */
export async function stockedOffering(ctx: TriggerContext, clientId: string, options: { amount?: number; onHand?: number; lowStockThreshold?: number } = {}) {
  const offering = await ok(
    ctx.wallet.POST('/v1/clients/{clientId}/offerings', {
      params: { path: { clientId } },
      body: { title: tag('tee'), status: 'published', variants: [{ sku: tag('sku'), amount: options.amount ?? 1500 }] },
    }),
  );
  const variantId = offering.variants![0]!.id;
  const path = { clientId, offeringId: offering.id, variantId };
  if (options.lowStockThreshold !== undefined) {
    await ok(ctx.wallet.PATCH('/v1/clients/{clientId}/offerings/{offeringId}/variants/{variantId}', { params: { path }, body: { inventory: { low_stock_threshold: options.lowStockThreshold } } }));
  }
  await ok(ctx.wallet.POST('/v1/clients/{clientId}/offerings/{offeringId}/variants/{variantId}/stock', { params: { path }, body: { delta: options.onHand ?? 20, reason: 'delivery' } }));
  return { offeringId: offering.id, variantId };
}

/** An open order of `quantity` units by a funded shopper, and what it needs to be paid. */
export async function openOrder(ctx: TriggerContext, options: { quantity?: number; lowStockThreshold?: number; onHand?: number } = {}) {
  const { clientId } = await approvedClient(ctx);
  const { variantId } = await stockedOffering(ctx, clientId, { lowStockThreshold: options.lowStockThreshold, onHand: options.onHand });
  const shopper = await fundedUser(ctx, 50_000, 'shopper');
  const order = await ok(ctx.wallet.POST('/v1/orders', { body: { client_id: clientId, user_id: shopper.id, lines: [{ variant_id: variantId, quantity: options.quantity ?? 1 }] } }));
  return { order, clientId, shopper };
}

/** A plan offering and an active subscription of a funded subscriber to it (first period charged). */
export async function activeSubscription(ctx: TriggerContext, payerBalance = 10_000) {
  const { clientId } = await approvedClient(ctx);
  const plan = await ok(ctx.wallet.POST('/v1/clients/{clientId}/offerings', { params: { path: { clientId } }, body: { kind: 'plan', title: tag('plan'), amount: 900, interval: 'weekly', status: 'published' } }));
  const subscriber = await fundedUser(ctx, payerBalance, 'subscriber');
  const token = await userToken(ctx, subscriber.external_id, ['subscriptions:read', 'subscriptions:write']);
  const subscription = await ok(
    ctx.wallet.POST('/v1/explore/offerings/{offeringId}/subscribe', { params: { path: { offeringId: plan.id } }, headers: { authorization: `Bearer ${token}` } }),
  );
  return { subscription, subscriber };
}

/** Beyond the schedule's period: the worker's own run, and the relay that records the event. */
const SCHEDULE_SLACK_MS = 30_000;

/**
 * Waits for a hold to run out and its expiry worker to end it: at once where the caller can run the
 * worker (tests); else on the platform's schedule, which nothing outside the platform's process can
 * drive, so the event may take up to the schedule's period (a minute) and some more to show. A hold
 * set far ahead (the defaults: 7 days for payments, 15 minutes for orders) is explained instead of
 * waited for.
 */
export async function waitForExpiry(ctx: TriggerContext, expiresAt: string, worker: string, setting: string): Promise<RecipeOutcome> {
  const remainingMs = new Date(expiresAt).getTime() - Date.now();
  if (remainingMs > 120_000) {
    throw new TriggerRefusal(
      `it fires when a hold runs out, and this platform holds for ${Math.round(remainingMs / 1000)} s (${setting}); restart it with ${setting}=5 (for example) and trigger again`,
    );
  }
  const runScheduled = ctx.runScheduled;
  if (runScheduled) {
    ctx.say(`waiting for the hold to run out at ${expiresAt}`);
    await sleep(Math.max(0, remainingMs) + 50);
    await runScheduled(worker);
    return { eventWithinMs: EVENT_WAIT_MS };
  }
  const periodMs = schedulePeriodMs(worker);
  const eventWithinMs = periodMs + SCHEDULE_SLACK_MS;
  ctx.say(
    `waiting for the hold to run out at ${expiresAt}, then for ${worker}, which runs every ${periodMs === 60_000 ? 'minute' : `${periodMs / 60_000} minutes`}: up to ${Math.round((Math.max(0, remainingMs) + eventWithinMs) / 1000)} s`,
  );
  await sleep(Math.max(0, remainingMs) + 50);
  return { eventWithinMs };
}

/** How often the platform runs a scheduled worker (shared/workers.ts, which the embedded platform's scheduler follows). */
function schedulePeriodMs(worker: string): number {
  const trigger = workers.find((w) => w.name === worker)?.trigger;
  if (trigger?.kind !== 'schedule') throw new Error(`${worker} is no scheduled worker`);
  return trigger.rateMinutes * 60_000;
}

/** A trigger that cannot fire its event here, with the reason in words for the person. */
export class TriggerRefusal extends Error {}
