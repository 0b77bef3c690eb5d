import { getUserLimits } from '../../shared/wallet/transfers/limits';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.getUserLimits, async ({ request, principal, runtime }) => ({
  body: await getUserLimits(runtime, tenantOf(principal), request.params.userId),
}));
