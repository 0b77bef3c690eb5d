import { walletHandler } from '../../shared/runtime/wallet';
import { exploreOfferingById } from '../../shared/wallet/catalog/explore';
import { tenantOf } from '../../shared/wallet/principals';
export const handler = walletHandler(async () => (await import('../../shared/wallet/catalog/explore-routes')).exploreRoutes.getExploreOffering, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await exploreOfferingById(runtime, tenantOf(principal), request.params.offeringId),
}));
