import { outcomeResult } from '../../shared/http/outcome';
import { fundMarketing } from '../../shared/wallet/rewards/wallet';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.fundMarketing, async ({ request, principal, runtime }) =>
  outcomeResult(
    await fundMarketing(runtime, principal, tenantOf(principal), request.params.merchantId, request.body.amount, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
