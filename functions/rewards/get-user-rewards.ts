import { userRewards } from '../../shared/wallet/rewards/wallet';
import { rewardRoutes } from '../../shared/wallet/rewards/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { assertSelf, tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(rewardRoutes.getUserRewards, async ({ request, principal, runtime }) => {
  assertSelf(principal, request.params.userId);
  return { status: 200, body: await userRewards(runtime, tenantOf(principal), request.params.userId) };
});
