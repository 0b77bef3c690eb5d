import { ownerFor } from '../../shared/wallet/webhooks/access';
import { endpointStats } from '../../shared/wallet/webhooks/health';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.getWebhookEndpointStats, async ({ request, principal, runtime }) => ({
  body: await endpointStats(runtime, ownerFor(principal), request.params.endpointId),
}));
