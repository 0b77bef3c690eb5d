import { topupRoutes } from '../../shared/topups/routes';
import { listTopupGateways } from '../../shared/topups/service';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(topupRoutes.listTopupGateways, async ({ principal, runtime }) => ({
  body: await listTopupGateways(runtime, tenantOf(principal)),
}));
