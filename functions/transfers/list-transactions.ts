import { transferRoutes } from '../../shared/transfers/routes';
import { listTransactions } from '../../shared/transfers/transactions';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.listTransactions, async ({ request, principal, runtime }) => ({
  body: await listTransactions(runtime, tenantOf(principal), request.query, { userId: principal.userId, scopes: principal.scopes }),
}));
