import { clientRoutes } from '../../shared/wallet/catalog/client-routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { changeClient } from '../../shared/wallet/catalog/clients';
export const handler = walletHandler(clientRoutes.unhideClient, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await changeClient(runtime, principal, { tenantId: null }, request.params.clientId, 'unhide', request.requestId),
}));
