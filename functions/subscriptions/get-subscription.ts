import { subscriptionRecord, toSubscription } from '../../shared/wallet/subscriptions/records';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/subscriptions/routes')).subscriptionRoutes.getSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: toSubscription(await subscriptionRecord(runtime, ownerScopeOf(principal), request.params.subscriptionId)),
}));
