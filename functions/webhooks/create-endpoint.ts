import { ownerFor } from '../../shared/wallet/webhooks/access';
import { createEndpoint, livemodeOf } from '../../shared/wallet/webhooks/endpoints';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.createWebhookEndpoint, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createEndpoint(runtime, ownerFor(principal), request.body, {
    actor: principal,
    requestId: request.requestId,
    livemode: livemodeOf(principal),
  }),
}));
