import { listOrders } from '../../shared/wallet/orders/records';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/orders/routes')).orderRoutes.listOrders, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listOrders(runtime, ownerScopeOf(principal), request.query),
}));
