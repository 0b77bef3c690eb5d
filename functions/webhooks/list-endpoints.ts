import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listLiveEndpoints } from '../../shared/wallet/webhooks/endpoints';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.listWebhookEndpoints, async ({ principal, runtime }) => ({
  body: await listLiveEndpoints(runtime, ownerFor(principal)),
}));
