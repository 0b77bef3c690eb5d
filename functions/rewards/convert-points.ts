import { outcomeResult } from '../../shared/http/outcome';
import { convertPoints } from '../../shared/wallet/rewards/wallet';
import { walletHandler } from '../../shared/runtime/wallet';
import { assertSelf, tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.convertPoints, async ({ request, principal, runtime }) => {
  assertSelf(principal, request.params.userId);
  return outcomeResult(
    await convertPoints(runtime, principal, tenantOf(principal), request.params.userId, request.body.points, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  );
});
