import { createGrant } from '../../shared/wallet/console/grants';
import { consoleRoutes } from '../../shared/wallet/console/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(consoleRoutes.createGrant, async ({ request, principal, runtime }) => ({
  body: await createGrant(runtime, principal, request.body, request.requestId),
}));
