import { outcomeResult } from '../../shared/http/outcome';
import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { rotateSecret } from '../../shared/wallet/webhooks/rotation';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.rotateClientWebhookEndpointSecret, async ({ request, principal, runtime }) =>
  outcomeResult(
    await rotateSecret(runtime, principal, await clientOwnerFor(runtime, principal, 'manage', request.params.clientId), request.params.endpointId, request.body, {
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
