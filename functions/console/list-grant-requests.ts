import { listGrantRequests } from '../../shared/wallet/console/grant-requests';
import { consoleRoutes } from '../../shared/wallet/console/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(consoleRoutes.listGrantRequests, async ({ request, principal, runtime }) => ({
  body: await listGrantRequests(runtime, principal.tenantId!, request.params.grantId, request.query),
}));
