import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { tenantHealth } from '../../shared/wallet/tenancy/tenants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(tenancyRoutes.getTenantHealth, async ({ request, principal, runtime }) => ({
  body: await tenantHealth(runtime, request.params.tenantId, { actor: principal, requestId: request.requestId }),
}));
