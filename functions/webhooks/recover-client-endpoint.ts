import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { recoverEndpoint } from '../../shared/wallet/webhooks/recovery';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.recoverClientWebhookEndpoint, async ({ request, principal, runtime }) => ({
  body: await recoverEndpoint(runtime, await clientOwnerFor(runtime, principal, 'manage', request.params.clientId), request.params.endpointId, request.body, {
    actor: principal,
    requestId: request.requestId,
  }),
}));
