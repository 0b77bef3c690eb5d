import { listGrants } from '../../shared/wallet/console/grants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/console/routes')).consoleRoutes.listGrants, async ({ request, principal, runtime }) => ({
  body: await listGrants(runtime, principal.tenantId!, request.query.cursor, request.query.limit, request.query),
}));
