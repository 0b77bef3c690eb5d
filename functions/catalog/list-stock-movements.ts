import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { listMovements } from '../../shared/wallet/catalog/stock';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.listStockMovements, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listMovements(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.query),
}));
