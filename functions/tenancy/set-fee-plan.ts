import { setFeePlan } from '../../shared/wallet/tenancy/fee-plan';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.setFeePlan, async ({ request, principal, runtime }) => ({
  body: await setFeePlan(runtime, tenantOf(principal), request.body, { actor: principal, requestId: request.requestId }),
}));
