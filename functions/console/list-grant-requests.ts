import { listGrantRequests } from '../../shared/wallet/console/grant-requests';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/console/routes')).consoleRoutes.listGrantRequests, async ({ request, principal, runtime }) => ({
  body: await listGrantRequests(runtime, principal.tenantId!, request.params.grantId, request.query),
}));
