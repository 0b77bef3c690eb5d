import { userRewards } from '../../shared/wallet/rewards/wallet';
import { walletHandler } from '../../shared/runtime/wallet';
import { assertSelf, tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.getUserRewards, async ({ request, principal, runtime }) => {
  assertSelf(principal, request.params.userId);
  return { status: 200, body: await userRewards(runtime, tenantOf(principal), request.params.userId) };
});
