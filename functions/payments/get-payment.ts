import { getPayment } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.getPayment, async ({ request, principal, runtime }) => ({
  body: await getPayment(runtime, tenantOf(principal), request.params.paymentId, { selfOnly: principal.userId }),
}));
