import { getLimits } from '../../shared/transfers/limits';
import { transferRoutes } from '../../shared/transfers/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.getLimits, async ({ principal, runtime }) => ({
  body: await getLimits(runtime, tenantOf(principal)),
}));
