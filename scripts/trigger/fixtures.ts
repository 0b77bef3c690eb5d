import { randomUUID } from 'node:crypto';
import { ok } from '../../client/core';
import type { createWalletClient } from '../../client/wallet';

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

export const tag = (what: string) => `trigger-${what}-${randomUUID().slice(0, 8)}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers a value, or fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
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

/**
 * Waits for a hold to run out and its expiry worker to end it: at once where the caller can run the
 * worker (tests), else the platform's schedule (every minute). A hold set far ahead (the defaults:
 * 7 days for payments, 15 minutes for orders) is explained instead of waited for.
 */
export async function waitForExpiry(ctx: TriggerContext, expiresAt: string, worker: string, setting: string): Promise<void> {
  const remainingMs = new Date(expiresAt).getTime() - Date.now();
  if (remainingMs > 120_000) {
    throw new TriggerRefusal(
      `it fires when a hold runs out, and this platform holds for ${Math.round(remainingMs / 1000)} s (${setting}); restart it with ${setting}=5 (for example) and trigger again`,
    );
  }
  ctx.say(`waiting for the hold to run out at ${expiresAt}${ctx.runScheduled ? '' : ' and the expiry worker to run (every minute)'}`);
  await sleep(Math.max(0, remainingMs) + 50);
  await ctx.runScheduled?.(worker);
}

/** A trigger that cannot fire its event here, with the reason in words for the person. */
export class TriggerRefusal extends Error {}
