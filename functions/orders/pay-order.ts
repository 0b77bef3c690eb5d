import { outcomeResult } from '../../shared/http/outcome';
import { payOrder } from '../../shared/wallet/orders/pay';
import { walletHandler } from '../../shared/runtime/wallet';
import { ownerScopeOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/orders/routes')).orderRoutes.payOrder, async ({ request, principal, runtime }) =>
  outcomeResult(
    await payOrder(runtime, principal, ownerScopeOf(principal), request.params.orderId, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
