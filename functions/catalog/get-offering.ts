import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { getOffering } from '../../shared/wallet/catalog/offerings';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.getOffering, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await getOffering(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.params.offeringId),
}));
