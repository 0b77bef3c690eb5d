import { ownerFor } from '../../shared/wallet/webhooks/access';
import { updateEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.updateWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await updateEndpoint(runtime, ownerFor(principal), request.params.endpointId, request.body, { actor: principal, requestId: request.requestId }),
}));
