import { walletHandler } from '../../shared/runtime/wallet';
import { changeClient } from '../../shared/wallet/catalog/clients';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/client-routes')).clientRoutes.approveClient, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await changeClient(runtime, principal, { tenantId: tenantOf(principal) }, request.params.clientId, 'approve', request.requestId),
}));
