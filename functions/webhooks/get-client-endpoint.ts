import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { getEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.getClientWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await getEndpoint(runtime, await clientOwnerFor(runtime, principal, 'read', request.params.clientId), request.params.endpointId),
}));
