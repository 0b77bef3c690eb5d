import { resolveTopup } from '../../shared/wallet/topups/settlement';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.resolveTopup, async ({ request, principal, runtime }) =>
  outcomeResult(
    await resolveTopup(runtime, tenantOf(principal), principal, { topupId: request.params.topupId, action: request.body.action }, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
