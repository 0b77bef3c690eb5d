import { resolvePayment } from '../../shared/wallet/payments/capture';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payments/routes')).paymentRoutes.capturePayment, async ({ request, principal, runtime }) =>
  outcomeResult(
    await resolvePayment(runtime, principal, tenantOf(principal), request.params.paymentId, 'capture', request.body, {
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
