import { listPlatformUsers } from '../../shared/wallet/tenancy/platform';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.listPlatformUsers, async ({ request, principal, runtime }) => ({
  body: await listPlatformUsers(runtime, request.query, { actor: principal, requestId: request.requestId }),
}));
