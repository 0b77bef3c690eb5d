import { walletHandler } from '../../shared/runtime/wallet';
import { exploreClients } from '../../shared/wallet/catalog/explore';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/explore-routes')).exploreRoutes.listExploreClients, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await exploreClients(runtime, tenantOf(principal), request.query),
}));
