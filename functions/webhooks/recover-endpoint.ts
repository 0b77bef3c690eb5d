import { ownerFor } from '../../shared/wallet/webhooks/access';
import { recoverEndpoint } from '../../shared/wallet/webhooks/recovery';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.recoverWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await recoverEndpoint(runtime, ownerFor(principal), request.params.endpointId, request.body, { actor: principal, requestId: request.requestId }),
}));
