import { getFeePlan } from '../../shared/wallet/tenancy/fee-plan';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(tenancyRoutes.getFeePlan, async ({ principal, runtime }) => ({
  body: await getFeePlan(runtime, tenantOf(principal)),
}));
