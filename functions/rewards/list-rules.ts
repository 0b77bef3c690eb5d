import { authorizeClient } from '../../shared/wallet/catalog/clients';
import { listRules } from '../../shared/wallet/rewards/rules';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.listRewardRules, async ({ request, principal, runtime }) => ({
  status: 200,
  body: await listRules(runtime, await authorizeClient(runtime, principal, request.params.clientId), request.query),
}));
