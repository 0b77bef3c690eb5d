import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listEvents } from '../../shared/wallet/webhooks/events';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(webhookRoutes.listWebhookEvents, async ({ request, principal, runtime }) => ({
  body: await listEvents(runtime, ownerFor(principal).tenantId, request.query),
}));
