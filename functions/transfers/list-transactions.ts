import { listTransactions } from '../../shared/wallet/transfers/transactions';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.listTransactions, async ({ request, principal, runtime }) => ({
  body: await listTransactions(runtime, tenantOf(principal), request.query, { userId: principal.userId, scopes: principal.scopes }),
}));
