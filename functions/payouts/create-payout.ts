import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { startPayout } from '../../shared/wallet/payouts/create';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payouts/routes')).payoutRoutes.createPayout, async ({ request, principal, runtime }) =>
  outcomeResult(
    await startPayout(runtime, tenantOf(principal), principal, request.body, {
      // Required by the route: the middleware refused the request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
