import { outcomeResult } from '../../shared/http/outcome';
import { ownerFor } from '../../shared/wallet/webhooks/access';
import { rotateSecret } from '../../shared/wallet/webhooks/rotation';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.rotateWebhookEndpointSecret, async ({ request, principal, runtime }) =>
  outcomeResult(
    // The route requires the Idempotency-Key: the middleware refused a request without one.
    await rotateSecret(runtime, principal, ownerFor(principal), request.params.endpointId, request.body, { idempotencyKey: request.idempotencyKey!, requestId: request.requestId }),
  ),
);
