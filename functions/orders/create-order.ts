import { outcomeResult } from '../../shared/http/outcome';
import { createOrder } from '../../shared/wallet/orders/create';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/orders/routes')).orderRoutes.createOrder, async ({ request, principal, runtime }) =>
  outcomeResult(
    await createOrder(runtime, principal, tenantOf(principal), request.body, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
