import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listEvents } from '../../shared/wallet/webhooks/events';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.listWebhookEvents, async ({ request, principal, runtime }) => ({
  body: await listEvents(runtime, ownerFor(principal).tenantId, request.query),
}));
