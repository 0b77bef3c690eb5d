import { listPayments } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.listPayments, async ({ request, principal, runtime }) => ({
  body: await listPayments(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
