import { createRefund } from '../../shared/wallet/orders/refunds';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payments/routes')).paymentRoutes.createRefund, async ({ request, principal, runtime }) =>
  outcomeResult(
    await createRefund(runtime, principal, tenantOf(principal), request.body, {
      // Required by the route: the middleware refused the request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
