import { listRefunds } from '../../shared/wallet/payments/refunds';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.listRefunds, async ({ request, principal, runtime }) => ({
  body: await listRefunds(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
