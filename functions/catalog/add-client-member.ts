import { walletHandler } from '../../shared/runtime/wallet';
import { addMember } from '../../shared/wallet/catalog/clients';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/client-routes')).clientRoutes.addClientMember, async ({ request, principal, runtime }) => {
  const { member, created } = await addMember(runtime, principal, request.params.clientId, request.body.staff_id, request.requestId);
  return { status: created ? 201 : 200, body: member };
});
