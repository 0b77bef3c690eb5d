import { revokeGrant } from '../../shared/wallet/console/grants';
import { consoleRoutes } from '../../shared/wallet/console/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(consoleRoutes.revokeGrant, async ({ request, principal, runtime }) => ({
  body: await revokeGrant(runtime, principal, request.params.grantId, request.requestId),
}));
