import { topupRoutes } from '../../shared/topups/routes';
import { getTopup } from '../../shared/topups/service';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(topupRoutes.getTopup, async ({ request, principal, runtime }) => ({
  body: await getTopup(runtime, tenantOf(principal), request.params.topupId, { selfOnly: principal.userId }),
}));
