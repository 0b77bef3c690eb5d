import { pauseSubscription } from '../../shared/wallet/subscriptions/manage';
import { subscriptionScopeOf } from '../../shared/wallet/subscriptions/records';
import { subscriptionRoutes } from '../../shared/wallet/subscriptions/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(subscriptionRoutes.pauseSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await pauseSubscription(runtime, subscriptionScopeOf(principal), request.params.subscriptionId),
}));
