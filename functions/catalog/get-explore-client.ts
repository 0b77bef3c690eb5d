import { exploreRoutes } from '../../shared/wallet/catalog/explore-routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { exploreClientDetails } from '../../shared/wallet/catalog/explore';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(exploreRoutes.getExploreClient, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await exploreClientDetails(runtime, tenantOf(principal), request.params.clientId),
}));
