import { getUserLimits } from '../../shared/transfers/limits';
import { transferRoutes } from '../../shared/transfers/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.getUserLimits, async ({ request, principal, runtime }) => ({
  body: await getUserLimits(runtime, tenantOf(principal), request.params.userId),
}));
