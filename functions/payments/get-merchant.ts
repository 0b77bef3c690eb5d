import { getMerchant } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.getMerchant, async ({ request, principal, runtime }) => ({
  body: await getMerchant(runtime, tenantOf(principal), request.params.merchantId),
}));
