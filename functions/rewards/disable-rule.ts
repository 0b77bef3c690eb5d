import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { disableRule } from '../../shared/wallet/rewards/rules';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.disableRewardRule, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await disableRule(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.params.ruleId),
}));
