import { ownerFor } from '../../shared/webhooks/access';
import { listEndpoints } from '../../shared/webhooks/endpoints';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(webhookRoutes.listWebhookEndpoints, async ({ request, principal, runtime }) => ({
  body: await listEndpoints(runtime, ownerFor(principal, 'read'), request.query),
}));
