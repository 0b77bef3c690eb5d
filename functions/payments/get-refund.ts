import { getRefund } from '../../shared/wallet/payments/refunds';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payments/routes')).paymentRoutes.getRefund, async ({ request, principal, runtime }) => ({
  body: await getRefund(runtime, tenantOf(principal), request.params.refundId, { selfOnly: principal.userId }),
}));
