import { listUsers } from '../../shared/wallet/tenancy/users';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.listUsers, async ({ request, principal, runtime }) => ({
  body: await listUsers(runtime, tenantOf(principal), { ...request.query, externalId: request.query.external_id, selfOnly: principal.userId }),
}));
