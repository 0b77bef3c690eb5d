import { topupRoutes } from '../../shared/topups/routes';
import { listTopups } from '../../shared/topups/service';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(topupRoutes.listTopups, async ({ request, principal, runtime }) => ({
  body: await listTopups(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
