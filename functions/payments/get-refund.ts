import { getRefund } from '../../shared/wallet/payments/refunds';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.getRefund, async ({ request, principal, runtime }) => ({
  body: await getRefund(runtime, tenantOf(principal), request.params.refundId, { selfOnly: principal.userId }),
}));
