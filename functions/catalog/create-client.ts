import { walletHandler } from '../../shared/runtime/wallet';
import { createClient } from '../../shared/wallet/catalog/clients';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/client-routes')).clientRoutes.createClient, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createClient(runtime, principal, tenantOf(principal), request.body, request.requestId),
}));
