import { ownerFor } from '../../shared/wallet/webhooks/access';
import { redeliverEvent } from '../../shared/wallet/webhooks/events';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.redeliverWebhookEvent, async ({ request, principal, runtime }) => ({
  status: 202,
  body: await redeliverEvent(runtime, ownerFor(principal).tenantId, request.params.eventId, request.body),
}));
