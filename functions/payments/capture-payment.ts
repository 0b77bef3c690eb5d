import { resolvePayment } from '../../shared/wallet/payments/capture';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.capturePayment, async ({ request, principal, runtime }) =>
  outcomeResult(
    await resolvePayment(runtime, principal, tenantOf(principal), request.params.paymentId, 'capture', request.body, {
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
