import { walletHandler } from '../../shared/runtime/wallet';
import { authorizeClient, publicClient } from '../../shared/wallet/catalog/clients';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/client-routes')).clientRoutes.getClient, async ({ request, principal, runtime }) => ({
  status: 200,
  body: publicClient(await authorizeClient(runtime, principal, request.params.clientId)),
}));
