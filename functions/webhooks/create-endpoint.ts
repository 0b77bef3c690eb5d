import { ownerFor } from '../../shared/wallet/webhooks/access';
import { createEndpoint, livemodeOf } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.createWebhookEndpoint, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createEndpoint(runtime, ownerFor(principal), request.body, {
    actor: principal,
    requestId: request.requestId,
    livemode: livemodeOf(principal),
  }),
}));
