import { ownerFor } from '../../shared/webhooks/access';
import { listAttempts } from '../../shared/webhooks/deliveries';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(webhookRoutes.listClientWebhookDeliveries, async ({ request, principal, runtime }) => ({
  body: await listAttempts(runtime, ownerFor(principal, 'read', request.params.clientId), request.query),
}));
