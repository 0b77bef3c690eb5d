import { ownerFor } from '../../shared/webhooks/access';
import { createEndpoint, livemodeOf } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(webhookRoutes.createWebhookEndpoint, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createEndpoint(runtime, ownerFor(principal, 'manage'), request.body, {
    actor: principal,
    requestId: request.requestId,
    livemode: await livemodeOf(runtime, principal),
  }),
}));
