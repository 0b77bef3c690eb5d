import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listAttempts } from '../../shared/wallet/webhooks/deliveries';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.listWebhookDeliveries, async ({ request, principal, runtime }) => ({
  body: await listAttempts(runtime, ownerFor(principal), request.query),
}));
