import { outcomeResult } from '../../shared/http/outcome';
import { subscribe } from '../../shared/wallet/subscriptions/subscribe';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/subscriptions/routes')).subscriptionRoutes.subscribe, async ({ request, principal, runtime }) =>
  outcomeResult(
    await subscribe(runtime, principal, request.params.offeringId, {
      // Required by the route, so the middleware has refused a request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
