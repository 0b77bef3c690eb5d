import { walletHandler } from '../../shared/runtime/wallet';
import { listClients } from '../../shared/wallet/catalog/clients';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/client-routes')).clientRoutes.listClients, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listClients(runtime, tenantOf(principal), request.query),
}));
