import { getFeePlan } from '../../shared/wallet/tenancy/fee-plan';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.getFeePlan, async ({ principal, runtime }) => ({
  body: await getFeePlan(runtime, tenantOf(principal)),
}));
