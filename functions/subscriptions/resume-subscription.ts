import { resumeSubscription } from '../../shared/wallet/subscriptions/manage';
import { subscriptionScopeOf } from '../../shared/wallet/subscriptions/records';
import { subscriptionRoutes } from '../../shared/wallet/subscriptions/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(subscriptionRoutes.resumeSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await resumeSubscription(runtime, subscriptionScopeOf(principal), request.params.subscriptionId),
}));
