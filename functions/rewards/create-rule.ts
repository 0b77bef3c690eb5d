import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { createRule } from '../../shared/wallet/rewards/rules';
import { rewardRoutes } from '../../shared/wallet/rewards/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(rewardRoutes.createRewardRule, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createRule(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.body),
}));
