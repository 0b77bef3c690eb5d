import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { retireVariant } from '../../shared/wallet/catalog/variants';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.retireVariant, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await retireVariant(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.params.offeringId, request.params.variantId),
}));
