import { topupRoutes } from '../../shared/topups/routes';
import { resolveTopup } from '../../shared/topups/service';
import { outcomeResult } from '../../shared/http/outcome';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(topupRoutes.resolveTopup, async ({ request, principal, runtime }) =>
  outcomeResult(
    await resolveTopup(runtime, tenantOf(principal), principal, { topupId: request.params.topupId, action: request.body.action }, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
