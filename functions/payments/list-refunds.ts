import { listRefunds } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.listRefunds, async ({ request, principal, runtime }) => ({
  body: await listRefunds(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
