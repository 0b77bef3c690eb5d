import { listPayments } from '../../shared/wallet/payments/payments';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.listPayments, async ({ request, principal, runtime }) => ({
  body: await listPayments(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
