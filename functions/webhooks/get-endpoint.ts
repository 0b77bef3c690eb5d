import { ownerFor } from '../../shared/wallet/webhooks/access';
import { getEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.getWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await getEndpoint(runtime, ownerFor(principal), request.params.endpointId),
}));
