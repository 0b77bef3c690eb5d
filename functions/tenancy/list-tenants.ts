import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { listTenants } from '../../shared/wallet/tenancy/tenants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(tenancyRoutes.listTenants, async ({ request, runtime }) => ({
  body: await listTenants(runtime, request.query),
}));
