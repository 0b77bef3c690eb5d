import { listMerchants } from '../../shared/wallet/payments/merchants';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.listMerchants, async ({ request, principal, runtime }) => ({
  body: await listMerchants(runtime, tenantOf(principal), request.query),
}));
