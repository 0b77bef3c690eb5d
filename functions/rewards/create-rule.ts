import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { createRule } from '../../shared/wallet/rewards/rules';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.createRewardRule, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createRule(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.body),
}));
