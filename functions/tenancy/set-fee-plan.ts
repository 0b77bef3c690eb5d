import { setFeePlan } from '../../shared/tenancy/fee-plan';
import { tenancyRoutes } from '../../shared/tenancy/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.setFeePlan, async ({ request, principal, runtime }) => ({
  body: await setFeePlan(runtime, tenantOf(principal), request.body, { actor: principal, requestId: request.requestId }),
}));
