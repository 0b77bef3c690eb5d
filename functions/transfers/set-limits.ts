import { setLimits } from '../../shared/wallet/transfers/limits';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.setLimits, async ({ request, principal, runtime }) => ({
  body: await setLimits(runtime, tenantOf(principal), request.body, { actor: principal, requestId: request.requestId }),
}));
