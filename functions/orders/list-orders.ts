import { listOrders } from '../../shared/wallet/orders/records';
import { orderRoutes } from '../../shared/wallet/orders/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(orderRoutes.listOrders, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listOrders(runtime, ownerScopeOf(principal), request.query),
}));
