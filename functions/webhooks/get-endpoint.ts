import { ownerFor } from '../../shared/wallet/webhooks/access';
import { getEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.getWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await getEndpoint(runtime, ownerFor(principal), request.params.endpointId),
}));
