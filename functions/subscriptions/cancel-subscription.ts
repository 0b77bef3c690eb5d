import { cancelSubscription } from '../../shared/wallet/subscriptions/manage';
import { subscriptionScopeOf } from '../../shared/wallet/subscriptions/records';
import { subscriptionRoutes } from '../../shared/wallet/subscriptions/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(subscriptionRoutes.cancelSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await cancelSubscription(runtime, subscriptionScopeOf(principal), request.params.subscriptionId, request.body.at_period_end),
}));
