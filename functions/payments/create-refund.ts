import { createRefund } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { outcomeResult } from '../../shared/http/outcome';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.createRefund, async ({ request, principal, runtime }) =>
  outcomeResult(
    await createRefund(runtime, principal, tenantOf(principal), request.body, {
      // Required by the route: the middleware refused the request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
