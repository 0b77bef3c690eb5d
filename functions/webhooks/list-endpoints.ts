import { ownerFor } from '../../shared/wallet/webhooks/access';
import { listLiveEndpoints } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.listWebhookEndpoints, async ({ principal, runtime }) => ({
  body: await listLiveEndpoints(runtime, ownerFor(principal)),
}));
