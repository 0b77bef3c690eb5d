import { offeringRoutes } from '../../shared/wallet/catalog/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { listOfferings } from '../../shared/wallet/catalog/offerings';
export const handler = walletHandler(offeringRoutes.listOfferings, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listOfferings(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.query),
}));
