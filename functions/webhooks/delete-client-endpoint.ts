import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { deleteEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.deleteClientWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await deleteEndpoint(runtime, await clientOwnerFor(runtime, principal, 'manage', request.params.clientId), request.params.endpointId, {
    actor: principal,
    requestId: request.requestId,
  }),
}));
