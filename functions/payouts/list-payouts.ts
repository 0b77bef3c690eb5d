import { walletHandler } from '../../shared/runtime/wallet';
import { listPayouts } from '../../shared/wallet/payouts/reads';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payouts/routes')).payoutRoutes.listPayouts, async ({ request, principal, runtime }) => ({
  body: await listPayouts(runtime, tenantOf(principal), principal, request.query),
}));
