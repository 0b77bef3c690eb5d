import { createGrant } from '../../shared/console/grants';
import { consoleRoutes } from '../../shared/console/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(consoleRoutes.createGrant, async ({ request, principal, runtime }) => ({
  body: await createGrant(runtime, principal, request.body, request.requestId),
}));
