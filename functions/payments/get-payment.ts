import { getPayment } from '../../shared/wallet/payments/payments';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payments/routes')).paymentRoutes.getPayment, async ({ request, principal, runtime }) => ({
  body: await getPayment(runtime, tenantOf(principal), request.params.paymentId, { selfOnly: principal.userId }),
}));
