import { listTopupGateways } from '../../shared/wallet/topups/reads';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.listTopupGateways, async ({ principal, runtime }) => ({
  body: await listTopupGateways(runtime, tenantOf(principal), principal),
}));
