import { revokeGrant } from '../../shared/wallet/console/grants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/console/routes')).consoleRoutes.revokeGrant, async ({ request, principal, runtime }) => ({
  body: await revokeGrant(runtime, principal, request.params.grantId, request.requestId),
}));
