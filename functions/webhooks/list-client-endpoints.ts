import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { listEndpoints } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.listClientWebhookEndpoints, async ({ request, principal, runtime }) => ({
  body: await listEndpoints(runtime, await clientOwnerFor(runtime, principal, 'read', request.params.clientId), request.query),
}));
