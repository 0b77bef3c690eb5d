import { tenantHealth } from '../../shared/wallet/tenancy/tenants';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.getTenantHealth, async ({ request, principal, runtime }) => ({
  body: await tenantHealth(runtime, request.params.tenantId, { actor: principal, requestId: request.requestId }),
}));
