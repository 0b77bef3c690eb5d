import { walletHandler } from '../../shared/runtime/wallet';
import { updateMerchant } from '../../shared/wallet/merchants/merchants';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/merchants/routes')).merchantRoutes.updateMerchant, async ({ request, principal, runtime }) => ({
  body: await updateMerchant(runtime, tenantOf(principal), request.params.merchantId, request.body, { actor: principal, requestId: request.requestId }),
}));
