import { createUser } from '../../shared/wallet/tenancy/users';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.createUser, async ({ request, principal, runtime }) => ({
  status: 201,
  body: (await createUser(runtime, tenantOf(principal), request.body, { actor: principal, requestId: request.requestId })).user,
}));
