import { getLimits } from '../../shared/wallet/transfers/limits';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.getLimits, async ({ principal, runtime }) => ({
  body: await getLimits(runtime, tenantOf(principal)),
}));
