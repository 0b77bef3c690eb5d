import { setLimits } from '../../shared/transfers/limits';
import { transferRoutes } from '../../shared/transfers/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.setLimits, async ({ request, principal, runtime }) => ({
  body: await setLimits(runtime, tenantOf(principal), request.body, { actor: principal, requestId: request.requestId }),
}));
