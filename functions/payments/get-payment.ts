import { getPayment } from '../../shared/wallet/payments/payments';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.getPayment, async ({ request, principal, runtime }) => ({
  body: await getPayment(runtime, tenantOf(principal), request.params.paymentId, { selfOnly: principal.userId }),
}));
