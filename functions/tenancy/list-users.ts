import { tenancyRoutes } from '../../shared/tenancy/routes';
import { listUsers } from '../../shared/tenancy/users';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.listUsers, async ({ request, principal, runtime }) => ({
  body: await listUsers(runtime, tenantOf(principal), { ...request.query, selfOnly: principal.userId }),
}));
