import { catalogRoutes } from '../../shared/wallet/catalog/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { removeMember } from '../../shared/wallet/catalog/clients';
export const handler = walletHandler(catalogRoutes.removeClientMember, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await removeMember(runtime, principal, request.params.clientId, request.params.staffId, request.requestId),
}));
