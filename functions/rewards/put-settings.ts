import { putSettings } from '../../shared/wallet/rewards/settings';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.putRewardSettings, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await putSettings(runtime, principal, tenantOf(principal), request.body, request.requestId),
}));
