import { getLimits } from '../../shared/wallet/transfers/limits';
import { transferRoutes } from '../../shared/wallet/transfers/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(transferRoutes.getLimits, async ({ principal, runtime }) => ({
  body: await getLimits(runtime, tenantOf(principal)),
}));
