import { ownerFor } from '../../shared/webhooks/access';
import { redeliverEvent } from '../../shared/webhooks/events';
import { webhookRoutes } from '../../shared/webhooks/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(webhookRoutes.redeliverWebhookEvent, async ({ request, principal, runtime }) => ({
  status: 202,
  body: await redeliverEvent(runtime, ownerFor(principal, 'manage').tenantId, request.params.eventId, request.body),
}));
