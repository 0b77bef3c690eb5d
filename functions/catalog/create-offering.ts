import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { createOffering } from '../../shared/wallet/catalog/offerings';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/routes')).offeringRoutes.createOffering, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createOffering(runtime, principal, await authorizeClient(runtime, principal, request.params.clientId), request.body),
}));
