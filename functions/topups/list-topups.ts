import { listTopups } from '../../shared/wallet/topups/reads';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.listTopups, async ({ request, principal, runtime }) => ({
  body: await listTopups(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
