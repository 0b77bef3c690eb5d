import { clientOwnerFor } from '../../shared/wallet/webhooks/access';
import { createEndpoint, livemodeOf } from '../../shared/wallet/webhooks/endpoints';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/webhooks/routes')).webhookRoutes.createClientWebhookEndpoint, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createEndpoint(runtime, await clientOwnerFor(runtime, principal, 'manage', request.params.clientId), request.body, {
    actor: principal,
    requestId: request.requestId,
    livemode: livemodeOf(principal),
  }),
}));
