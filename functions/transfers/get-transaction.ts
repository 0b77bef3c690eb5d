import { getTransaction } from '../../shared/wallet/transfers/transactions';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.getTransaction, async ({ request, principal, runtime }) => ({
  body: await getTransaction(runtime, tenantOf(principal), request.params.transactionId),
}));
