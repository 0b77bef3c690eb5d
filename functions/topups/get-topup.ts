import { getTopup } from '../../shared/wallet/topups/reads';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.getTopup, async ({ request, principal, runtime }) => ({
  body: await getTopup(runtime, tenantOf(principal), request.params.topupId, { selfOnly: principal.userId }),
}));
