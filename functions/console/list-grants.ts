import { listGrants } from '../../shared/console/grants';
import { consoleRoutes } from '../../shared/console/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(consoleRoutes.listGrants, async ({ request, principal, runtime }) => ({
  body: await listGrants(runtime, principal.tenantId!, request.query.cursor, request.query.limit),
}));
