import { tenancyRoutes } from '../../shared/tenancy/routes';
import { listTenants } from '../../shared/tenancy/tenants';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.listTenants, async ({ request, runtime }) => ({
  body: await listTenants(runtime, request.query),
}));
