import { resolvePayment } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { outcomeResult } from '../../shared/http/outcome';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.voidPayment, async ({ request, principal, runtime }) =>
  outcomeResult(
    await resolvePayment(runtime, principal, tenantOf(principal), request.params.paymentId, 'void', {}, {
      idempotencyKey: request.idempotencyKey,
      requestId: request.requestId,
    }),
  ),
);
