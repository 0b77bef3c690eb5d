import { revokeGrant } from '../../shared/console/grants';
import { consoleRoutes } from '../../shared/console/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(consoleRoutes.revokeGrant, async ({ request, principal, runtime }) => ({
  body: await revokeGrant(runtime, principal, request.params.grantId, request.requestId),
}));
