import { getBalances } from '../../shared/transfers/balances';
import { transferRoutes } from '../../shared/transfers/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.getUserBalances, async ({ request, principal, runtime }) => ({
  body: await getBalances(runtime, tenantOf(principal), request.params.userId, { selfOnly: principal.userId }),
}));
