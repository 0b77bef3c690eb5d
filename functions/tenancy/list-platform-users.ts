import { listPlatformUsers } from '../../shared/tenancy/platform';
import { tenancyRoutes } from '../../shared/tenancy/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.listPlatformUsers, async ({ request, principal, runtime }) => ({
  body: await listPlatformUsers(runtime, request.query, { actor: principal, requestId: request.requestId }),
}));
