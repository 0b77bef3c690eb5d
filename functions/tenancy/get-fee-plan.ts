import { getFeePlan } from '../../shared/tenancy/fee-plan';
import { tenancyRoutes } from '../../shared/tenancy/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.getFeePlan, async ({ principal, runtime }) => ({
  body: await getFeePlan(runtime, tenantOf(principal)),
}));
