import { apiKeyEnvOf } from '../../shared/topups/http';
import { topupRoutes } from '../../shared/topups/routes';
import { startTopup } from '../../shared/topups/service';
import { outcomeResult } from '../../shared/http/outcome';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(topupRoutes.createTopup, async ({ request, principal, runtime }) =>
  outcomeResult(
    await startTopup(runtime, tenantOf(principal), principal, request.body, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
      keyEnv: apiKeyEnvOf(principal, request.headers),
    }),
  ),
);
