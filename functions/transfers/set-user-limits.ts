import { setUserLimits } from '../../shared/transfers/limits';
import { transferRoutes } from '../../shared/transfers/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.setUserLimits, async ({ request, principal, runtime }) => ({
  body: await setUserLimits(runtime, tenantOf(principal), request.params.userId, request.body, { actor: principal, requestId: request.requestId }),
}));
