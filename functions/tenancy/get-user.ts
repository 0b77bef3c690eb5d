import { getUser } from '../../shared/wallet/tenancy/users';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.getUser, async ({ request, principal, runtime }) => ({
  body: await getUser(runtime, tenantOf(principal), request.params.userId, { selfOnly: principal.userId }),
}));
