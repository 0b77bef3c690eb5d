import { cancelSubscription } from '../../shared/wallet/subscriptions/manage';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/subscriptions/routes')).subscriptionRoutes.cancelSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await cancelSubscription(runtime, ownerScopeOf(principal), request.params.subscriptionId, request.body.at_period_end),
}));
