import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { changeStock } from '../../shared/wallet/catalog/stock';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.changeStock, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await changeStock(runtime, principal, await authorizeClient(runtime, principal, request.params.clientId), request.params.offeringId, request.params.variantId, request.body),
}));
