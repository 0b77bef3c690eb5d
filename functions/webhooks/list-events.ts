import { ownerFor } from '../../shared/webhooks/access';
import { listEvents } from '../../shared/webhooks/events';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(webhookRoutes.listWebhookEvents, async ({ request, principal, runtime }) => ({
  body: await listEvents(runtime, ownerFor(principal, 'read').tenantId, request.query),
}));
