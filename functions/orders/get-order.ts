import { getOrder, orderScopeOf } from '../../shared/wallet/orders/records';
import { orderRoutes } from '../../shared/wallet/orders/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(orderRoutes.getOrder, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await getOrder(runtime, orderScopeOf(principal), request.params.orderId),
}));
