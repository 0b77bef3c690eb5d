import { tenancyRoutes } from '../../shared/tenancy/routes';
import { getUser } from '../../shared/tenancy/users';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.getUser, async ({ request, principal, runtime }) => ({
  body: await getUser(runtime, tenantOf(principal), request.params.userId, { selfOnly: principal.userId }),
}));
