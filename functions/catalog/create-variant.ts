import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { addVariant } from '../../shared/wallet/catalog/variants';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.createVariant, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await addVariant(runtime, principal, await authorizeClient(runtime, principal, request.params.clientId), request.params.offeringId, request.body),
}));
