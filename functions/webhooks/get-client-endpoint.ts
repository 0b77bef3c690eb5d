import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { getEndpoint } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.getClientWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await getEndpoint(runtime, await clientOwnerFor(runtime, principal, 'read', request.params.clientId), request.params.endpointId),
}));
