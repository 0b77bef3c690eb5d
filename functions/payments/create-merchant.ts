import { createMerchant } from '../../shared/wallet/merchants/merchants';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/merchants/routes')).merchantRoutes.createMerchant, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createMerchant(runtime, tenantOf(principal), request.body),
}));
