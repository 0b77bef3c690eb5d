import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { updateEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.updateClientWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await updateEndpoint(runtime, await clientOwnerFor(runtime, principal, 'manage', request.params.clientId), request.params.endpointId, request.body, {
    actor: principal,
    requestId: request.requestId,
  }),
}));
