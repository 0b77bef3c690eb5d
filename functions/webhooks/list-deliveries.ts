import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listAttempts } from '../../shared/wallet/webhooks/deliveries';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.listWebhookDeliveries, async ({ request, principal, runtime }) => ({
  body: await listAttempts(runtime, ownerFor(principal), request.query),
}));
