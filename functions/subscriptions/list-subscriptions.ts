import { listSubscriptions, subscriptionScopeOf } from '../../shared/wallet/subscriptions/records';
import { subscriptionRoutes } from '../../shared/wallet/subscriptions/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(subscriptionRoutes.listSubscriptions, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listSubscriptions(runtime, subscriptionScopeOf(principal), request.query),
}));
