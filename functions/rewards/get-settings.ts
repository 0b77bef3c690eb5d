import { AppError } from '../../shared/kernel/errors';
import { getSettings } from '../../shared/wallet/rewards/settings';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/rewards/routes')).rewardRoutes.getRewardSettings, async ({ principal, runtime }) => {
  const settings = await getSettings(runtime, tenantOf(principal));
  if (!settings) throw new AppError('not_found', 'The tenant has no reward settings yet.');
  return { status: 200, body: settings };
});
