import { getMerchant } from '../../shared/wallet/merchants/merchants';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/merchants/routes')).merchantRoutes.getMerchant, async ({ request, principal, runtime }) => ({
  body: await getMerchant(runtime, tenantOf(principal), request.params.merchantId),
}));
