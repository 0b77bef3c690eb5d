import { listPlatformUsers } from '../../shared/wallet/tenancy/platform';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(tenancyRoutes.listPlatformUsers, async ({ request, principal, runtime }) => ({
  body: await listPlatformUsers(runtime, request.query, { actor: principal, requestId: request.requestId }),
}));
