import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { listAttempts } from '../../shared/wallet/webhooks/deliveries';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.listClientWebhookDeliveries, async ({ request, principal, runtime }) => ({
  body: await listAttempts(runtime, await clientOwnerFor(runtime, principal, 'read', request.params.clientId), request.query),
}));
