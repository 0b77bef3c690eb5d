import { listMerchants } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.listMerchants, async ({ request, principal, runtime }) => ({
  body: await listMerchants(runtime, tenantOf(principal), request.query),
}));
