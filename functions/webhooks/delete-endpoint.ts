import { ownerFor } from '../../shared/webhooks/access';
import { deleteEndpoint } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(webhookRoutes.deleteWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await deleteEndpoint(runtime, ownerFor(principal, 'manage'), request.params.endpointId, { actor: principal, requestId: request.requestId }),
}));
