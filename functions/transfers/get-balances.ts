import { getBalances } from '../../shared/wallet/transfers/balances';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.getUserBalances, async ({ request, principal, runtime }) => ({
  body: await getBalances(runtime, tenantOf(principal), request.params.userId, { selfOnly: principal.userId }),
}));
