import { transferRoutes } from '../../shared/transfers/routes';
import { listTransfers } from '../../shared/transfers/transfers';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.listTransfers, async ({ request, principal, runtime }) => ({
  body: await listTransfers(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
