import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { listRules } from '../../shared/wallet/rewards/rules';
import { rewardRoutes } from '../../shared/wallet/rewards/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(rewardRoutes.listRewardRules, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listRules(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.query),
}));
