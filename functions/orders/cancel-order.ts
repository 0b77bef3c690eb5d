import { outcomeResult } from '../../shared/http/outcome';
import { cancelOrder } from '../../shared/wallet/orders/cancel';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/orders/routes')).orderRoutes.cancelOrder, async ({ request, principal, runtime }) =>
  outcomeResult(
    await cancelOrder(runtime, principal, ownerScopeOf(principal), request.params.orderId, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
