import { listMerchants } from '../../shared/wallet/merchants/merchants';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/merchants/routes')).merchantRoutes.listMerchants, async ({ request, principal, runtime }) => ({
  body: await listMerchants(runtime, tenantOf(principal), request.query),
}));
