import { resumeSubscription } from '../../shared/wallet/subscriptions/manage';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/subscriptions/routes')).subscriptionRoutes.resumeSubscription, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await resumeSubscription(runtime, ownerScopeOf(principal), request.params.subscriptionId),
}));
