import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { listOfferings } from '../../shared/wallet/catalog/offerings';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.listOfferings, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listOfferings(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.query),
}));
