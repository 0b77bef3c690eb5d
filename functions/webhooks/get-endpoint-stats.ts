import { ownerFor } from '../../shared/wallet/webhooks/access';
import { endpointStats } from '../../shared/wallet/webhooks/health';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.getWebhookEndpointStats, async ({ request, principal, runtime }) => ({
  body: await endpointStats(runtime, ownerFor(principal), request.params.endpointId),
}));
