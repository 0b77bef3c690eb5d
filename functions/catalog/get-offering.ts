import { offeringRoutes } from '../../shared/wallet/catalog/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { getOffering } from '../../shared/wallet/catalog/offerings';
export const handler = walletHandler(offeringRoutes.getOffering, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await getOffering(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.params.offeringId),
}));
