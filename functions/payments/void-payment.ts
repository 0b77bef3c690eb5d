import { resolvePayment } from '../../shared/wallet/payments/capture';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.voidPayment, async ({ request, principal, runtime }) =>
  outcomeResult(
    await resolvePayment(runtime, principal, tenantOf(principal), request.params.paymentId, 'void', {}, {
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
