import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { listAttempts } from '../../shared/wallet/webhooks/deliveries';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.listClientWebhookDeliveries, async ({ request, principal, runtime }) => ({
  body: await listAttempts(runtime, await clientOwnerFor(runtime, principal, 'read', request.params.clientId), request.query),
}));
