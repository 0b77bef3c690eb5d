import { setUserLimits } from '../../shared/wallet/transfers/limits';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.setUserLimits, async ({ request, principal, runtime }) => ({
  body: await setUserLimits(runtime, tenantOf(principal), request.params.userId, request.body, { actor: principal, requestId: request.requestId }),
}));
