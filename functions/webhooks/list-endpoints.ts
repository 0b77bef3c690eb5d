import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listEndpoints } from '../../shared/wallet/webhooks/endpoints';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.listWebhookEndpoints, async ({ request, principal, runtime }) => ({
  body: await listEndpoints(runtime, ownerFor(principal, 'read'), request.query),
}));
