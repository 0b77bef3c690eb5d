import { listTenants } from '../../shared/wallet/tenancy/tenants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.listTenants, async ({ request, runtime }) => ({
  body: await listTenants(runtime, request.query),
}));
