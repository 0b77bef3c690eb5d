import { startTopup } from '../../shared/wallet/topups/create';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.createTopup, async ({ request, principal, runtime }) =>
  outcomeResult(
    await startTopup(runtime, tenantOf(principal), principal, request.body, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
