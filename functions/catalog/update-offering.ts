import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { patchOffering } from '../../shared/wallet/catalog/offerings';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.updateOffering, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await patchOffering(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.params.offeringId, request.body),
}));
