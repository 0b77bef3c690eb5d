import { walletHandler } from '../../shared/runtime/wallet';
import { exploreClientDetails } from '../../shared/wallet/catalog/explore';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/explore-routes')).exploreRoutes.getExploreClient, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await exploreClientDetails(runtime, tenantOf(principal), request.params.clientId),
}));
