import { putSettings } from '../../shared/wallet/rewards/settings';
import { rewardRoutes } from '../../shared/wallet/rewards/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(rewardRoutes.putRewardSettings, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await putSettings(runtime, principal, tenantOf(principal), request.body, request.requestId),
}));
