import { walletHandler } from '../../shared/runtime/wallet';
import { listPayouts } from '../../shared/wallet/payouts/reads';
import { payoutRoutes } from '../../shared/wallet/payouts/routes';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(payoutRoutes.listPayouts, async ({ request, principal, runtime }) => ({
  body: await listPayouts(runtime, tenantOf(principal), principal, request.query),
}));
