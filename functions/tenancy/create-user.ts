import { tenancyRoutes } from '../../shared/tenancy/routes';
import { createUser } from '../../shared/tenancy/users';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.createUser, async ({ request, principal, runtime }) => ({
  status: 201,
  body: (await createUser(runtime, tenantOf(principal), request.body, { actor: principal, requestId: request.requestId })).user,
}));
