import { getOrder } from '../../shared/wallet/orders/records';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/orders/routes')).orderRoutes.getOrder, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await getOrder(runtime, ownerScopeOf(principal), request.params.orderId),
}));
