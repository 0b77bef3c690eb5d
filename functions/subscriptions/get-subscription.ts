import { subscriptionRecord, subscriptionScopeOf, toSubscription } from '../../shared/wallet/subscriptions/records';
import { subscriptionRoutes } from '../../shared/wallet/subscriptions/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(subscriptionRoutes.getSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: toSubscription((await subscriptionRecord(runtime, subscriptionScopeOf(principal), request.params.subscriptionId)) as never),
}));
