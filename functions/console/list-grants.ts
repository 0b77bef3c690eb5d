import { listGrants } from '../../shared/wallet/console/grants';
import { consoleRoutes } from '../../shared/wallet/console/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(consoleRoutes.listGrants, async ({ request, principal, runtime }) => ({
  body: await listGrants(runtime, principal.tenantId!, request.query.cursor, request.query.limit, request.query),
}));
