import { walletHandler } from '../../shared/runtime/wallet';
import { getPayout } from '../../shared/wallet/payouts/reads';
import { payoutRoutes } from '../../shared/wallet/payouts/routes';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(payoutRoutes.getPayout, async ({ request, principal, runtime }) => ({
  body: await getPayout(runtime, tenantOf(principal), principal, request.params.payoutId),
}));
