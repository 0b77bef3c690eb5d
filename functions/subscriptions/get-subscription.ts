import { subscriptionRecord, toSubscription } from '../../shared/wallet/subscriptions/records';
import { subscriptionRoutes } from '../../shared/wallet/subscriptions/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(subscriptionRoutes.getSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: toSubscription(await subscriptionRecord(runtime, ownerScopeOf(principal), request.params.subscriptionId)),
}));
