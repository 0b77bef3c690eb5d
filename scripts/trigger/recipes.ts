import { ApiError, ok } from '../../client/core';
import type { EmittedEventType } from '../../shared/event-types';
import {
  activeSubscription,
  approvedClient,
  fundedUser,
  newMerchant,
  newUser,
  openOrder,
  pay,
  settledMerchant,
  stockedOffering,
  tag,
  topUp,
  availableOf,
  TriggerRefusal,
  mostSendable,
  transferFee,
  waitForExpiry,
  type RecipeOutcome,
  type TriggerContext,
} from './fixtures';

/**
 * One recipe per event type the platform emits: the API calls that make it fire once, as an
 * integrator would make them. A type emitted without a recipe is named in NO_RECIPE with the
 * reason; test/api/listen-trigger.test.ts fails on an emitted type that is in neither.
 */

/** Done when its event is on its way; an outcome says the event takes longer than usual to show. */
type Recipe = (ctx: TriggerContext) => Promise<void | RecipeOutcome>;

const subscriptionPath = (id: string) => ({ params: { path: { subscriptionId: id } } });

async function rewardedPayment(ctx: TriggerContext): Promise<{ userId: string }> {
  const settings = await ok(ctx.wallet.GET('/v1/rewards/settings')).catch((error: unknown) => {
    if (error instanceof ApiError && error.code === 'not_found') return undefined;
    throw error;
  });
  // The points commodity is set once per tenant: keep one that is set, else name PTS.
  await ok(ctx.wallet.PUT('/v1/rewards/settings', { body: { points_commodity: settings?.points_commodity ?? 'PTS', conversion_rate: { points: 100, cash: 5 } } }));
  const { clientId, merchantId } = await approvedClient(ctx, await settledMerchant(ctx));
  await ok(ctx.wallet.POST('/v1/merchants/{merchantId}/marketing_funds', { params: { path: { merchantId } }, body: { amount: 1000 } }));
  await ok(ctx.wallet.POST('/v1/clients/{clientId}/reward_rules', { params: { path: { clientId } }, body: { kind: 'cashback', params: { bps: 500 } } }));
  await ok(ctx.wallet.POST('/v1/clients/{clientId}/reward_rules', { params: { path: { clientId } }, body: { kind: 'accrual', params: { points: 1, per_amount: 10 } } }));
  const payer = await fundedUser(ctx, 10_000);
  await pay(ctx, payer.id, merchantId, 1000);
  return { userId: payer.id };
}

async function authorizedPayment(ctx: TriggerContext) {
  return pay(ctx, (await fundedUser(ctx, 10_000)).id, await newMerchant(ctx), 1000, false);
}

export const recipes: Partial<Record<EmittedEventType, Recipe>> = {
  'topup.succeeded': async (ctx) => topUp(ctx, (await newUser(ctx)).id, 1000, 'succeed'),
  'topup.failed': async (ctx) => topUp(ctx, (await newUser(ctx)).id, 1000, 'decline'),
  'topup.amount_mismatch': async (ctx) => topUp(ctx, (await newUser(ctx)).id, 1000, 'mismatch'),
  'transfer.completed': async (ctx) => {
    const [from, to] = [await fundedUser(ctx, 5000), await newUser(ctx, 'payee')];
    await ok(ctx.wallet.POST('/v1/transfers', { body: { from_user_id: from.id, to_user_id: to.id, amount: 1000 } }));
  },
  'credit_limit.changed': async (ctx) => {
    const user = await ok(ctx.wallet.POST('/v1/users', { body: { external_id: tag('business'), kind: 'business' } }));
    await ok(ctx.wallet.POST('/v1/users/{userId}/credit_limit', { params: { path: { userId: user.id } }, body: { credit_limit: 5000 } }));
  },
  'fee_plan.set': async (ctx) => {
    // The tenant's own commission mode, set again: the event fires, the fees stay as they were.
    const plan = await ok(ctx.wallet.GET('/v1/fee_plan'));
    await ok(ctx.wallet.PUT('/v1/fee_plan', { body: { commission_mode: plan.commission_mode } }));
  },
  'payment.authorized': async (ctx) => void (await authorizedPayment(ctx)),
  'payment.captured': async (ctx) => void (await pay(ctx, (await fundedUser(ctx, 10_000)).id, await newMerchant(ctx), 1000)),
  'payment.voided': async (ctx) => {
    const payment = await authorizedPayment(ctx);
    await ok(ctx.wallet.POST('/v1/payments/{paymentId}/void', { params: { path: { paymentId: payment.id } } }));
  },
  'payment.expired': async (ctx) => {
    const payment = await authorizedPayment(ctx);
    return waitForExpiry(ctx, payment.hold_expires_at!, 'paymentsExpireHolds', 'PAYMENT_HOLD_SECONDS');
  },
  'refund.completed': async (ctx) => {
    const payment = await pay(ctx, (await fundedUser(ctx, 10_000)).id, await newMerchant(ctx), 1000);
    await ok(ctx.wallet.POST('/v1/refunds', { body: { payment_id: payment.id, amount: 400 } }));
  },
  'cashback.granted': async (ctx) => void (await rewardedPayment(ctx)),
  'points.accrued': async (ctx) => void (await rewardedPayment(ctx)),
  'points.converted': async (ctx) => {
    const { userId } = await rewardedPayment(ctx);
    await ok(ctx.wallet.POST('/v1/users/{userId}/rewards/convert', { params: { path: { userId } }, body: { points: 100 } }));
  },
  'subscription.charged': async (ctx) => void (await activeSubscription(ctx)),
  'subscription.paused': async (ctx) => {
    const { subscription } = await activeSubscription(ctx);
    await ok(ctx.wallet.POST('/v1/subscriptions/{subscriptionId}/pause', subscriptionPath(subscription.id)));
  },
  'subscription.resumed': async (ctx) => {
    const { subscription } = await activeSubscription(ctx);
    await ok(ctx.wallet.POST('/v1/subscriptions/{subscriptionId}/pause', subscriptionPath(subscription.id)));
    await ok(ctx.wallet.POST('/v1/subscriptions/{subscriptionId}/resume', subscriptionPath(subscription.id)));
  },
  'subscription.retry_scheduled': async (ctx) => {
    // Resumed with too little money: the charge resume makes at once is refused, and dunning starts.
    const { subscription, subscriber } = await activeSubscription(ctx);
    await ok(ctx.wallet.POST('/v1/subscriptions/{subscriptionId}/pause', subscriptionPath(subscription.id)));
    // What is left goes to a payee, the tenant's p2p fee on top: the most it can send, leaving a unit or two.
    const amount = mostSendable(await availableOf(ctx, subscriber.id), await transferFee(ctx));
    if (amount > 0) await ok(ctx.wallet.POST('/v1/transfers', { body: { from_user_id: subscriber.id, to_user_id: (await newUser(ctx, 'payee')).id, amount } }));
    await ok(ctx.wallet.POST('/v1/subscriptions/{subscriptionId}/resume', subscriptionPath(subscription.id)));
  },
  'subscription.canceled': async (ctx) => {
    const { subscription } = await activeSubscription(ctx);
    await ok(ctx.wallet.POST('/v1/subscriptions/{subscriptionId}/cancel', { ...subscriptionPath(subscription.id), body: {} }));
  },
  'product.created': async (ctx) => void (await stockedOffering(ctx, (await approvedClient(ctx)).clientId)),
  'product.updated': async (ctx) => {
    const { clientId } = await approvedClient(ctx);
    const { offeringId } = await stockedOffering(ctx, clientId);
    await ok(ctx.wallet.PATCH('/v1/clients/{clientId}/offerings/{offeringId}', { params: { path: { clientId, offeringId } }, body: { title: tag('tee') } }));
  },
  'product.archived': async (ctx) => {
    const { clientId } = await approvedClient(ctx);
    const { offeringId } = await stockedOffering(ctx, clientId);
    await ok(ctx.wallet.PATCH('/v1/clients/{clientId}/offerings/{offeringId}', { params: { path: { clientId, offeringId } }, body: { status: 'archived' } }));
  },
  'import.completed': async (ctx) => {
    const { clientId } = await approvedClient(ctx);
    const products = [{ ref: tag('ref'), kind: 'item', title: tag('import'), variants: [{ sku: tag('sku'), amount: 1200 }] }];
    await ok(ctx.wallet.POST('/v1/clients/{clientId}/imports', { params: { path: { clientId } }, body: { format: 'json', content: { products } } }));
  },
  'order.created': async (ctx) => void (await openOrder(ctx)),
  'order.paid': async (ctx) => {
    const { order } = await openOrder(ctx);
    await ok(ctx.wallet.POST('/v1/orders/{orderId}/pay', { params: { path: { orderId: order.id } } }));
  },
  'order.canceled': async (ctx) => {
    const { order } = await openOrder(ctx);
    await ok(ctx.wallet.POST('/v1/orders/{orderId}/cancel', { params: { path: { orderId: order.id } } }));
  },
  'order.expired': async (ctx) => {
    const { order } = await openOrder(ctx);
    return waitForExpiry(ctx, order.expires_at, 'ordersExpire', 'ORDER_HOLD_SECONDS');
  },
  'inventory.low_stock': async (ctx) => {
    // 12 in stock, a threshold of 10: selling 2 takes on_hand to the threshold.
    const { order } = await openOrder(ctx, { quantity: 2, onHand: 12, lowStockThreshold: 10 });
    await ok(ctx.wallet.POST('/v1/orders/{orderId}/pay', { params: { path: { orderId: order.id } } }));
  },
  'payout.paid': async (ctx) => {
    await ok(ctx.wallet.POST('/v1/payouts', { body: { merchant_id: await settledMerchant(ctx), amount: 1000, currency: ctx.currency } }));
  },
  'payout.failed': async (ctx) => {
    await ok(ctx.wallet.POST('/v1/payouts', { body: { merchant_id: await settledMerchant(ctx), amount: 1000, currency: ctx.currency, sandbox_outcome: 'fail' } }));
  },
};

/** Emitted types no recipe fires on demand, and why (said by the CLI). */
export const NO_RECIPE: Readonly<Record<string, string>> = {
  'webhook_endpoint.disabled': 'it fires when an endpoint has failed its deliveries for about a day, which cannot be made to happen on demand',
};

export { TriggerRefusal };
