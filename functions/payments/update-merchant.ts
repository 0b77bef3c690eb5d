import { walletHandler } from '../../shared/runtime/wallet';
import { updateMerchant } from '../../shared/wallet/payments/merchants';
import { paymentRoutes } from '../../shared/wallet/payments/routes';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(paymentRoutes.updateMerchant, async ({ request, principal, runtime }) => ({
  body: await updateMerchant(runtime, tenantOf(principal), request.params.merchantId, request.body, { actor: principal, requestId: request.requestId }),
}));
