import { listSubscriptions } from '../../shared/wallet/subscriptions/records';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/subscriptions/routes')).subscriptionRoutes.listSubscriptions, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listSubscriptions(runtime, ownerScopeOf(principal), request.query),
}));
