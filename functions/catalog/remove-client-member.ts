import { walletHandler } from '../../shared/runtime/wallet';
import { removeMember } from '../../shared/wallet/catalog/clients';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/client-routes')).clientRoutes.removeClientMember, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await removeMember(runtime, principal, request.params.clientId, request.params.staffId, request.requestId),
}));
