import { getMerchant } from '../../shared/wallet/payments/merchants';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.getMerchant, async ({ request, principal, runtime }) => ({
  body: await getMerchant(runtime, tenantOf(principal), request.params.merchantId),
}));
