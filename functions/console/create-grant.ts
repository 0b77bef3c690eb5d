import { createGrant } from '../../shared/wallet/console/grants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/console/routes')).consoleRoutes.createGrant, async ({ request, principal, runtime }) => ({
  body: await createGrant(runtime, principal, request.body, request.requestId),
}));
