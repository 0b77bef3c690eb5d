import { walletHandler } from '../../shared/runtime/wallet';
import { getPayout } from '../../shared/wallet/payouts/reads';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payouts/routes')).payoutRoutes.getPayout, async ({ request, principal, runtime }) => ({
  body: await getPayout(runtime, tenantOf(principal), principal, request.params.payoutId),
}));
