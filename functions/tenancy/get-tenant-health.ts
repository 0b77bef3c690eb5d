import { tenancyRoutes } from '../../shared/tenancy/routes';
import { tenantHealth } from '../../shared/tenancy/tenants';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.getTenantHealth, async ({ request, principal, runtime }) => ({
  body: await tenantHealth(runtime, request.params.tenantId, { actor: principal, requestId: request.requestId }),
}));
