import { getUserLimits } from '../../shared/wallet/transfers/limits';
import { transferRoutes } from '../../shared/wallet/transfers/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(transferRoutes.getUserLimits, async ({ request, principal, runtime }) => ({
  body: await getUserLimits(runtime, tenantOf(principal), request.params.userId),
}));
