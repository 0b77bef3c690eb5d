import { listOrders, orderScopeOf } from '../../shared/wallet/orders/records';
import { orderRoutes } from '../../shared/wallet/orders/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(orderRoutes.listOrders, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listOrders(runtime, orderScopeOf(principal), request.query),
}));
