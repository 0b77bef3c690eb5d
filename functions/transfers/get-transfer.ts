import { transferRoutes } from '../../shared/transfers/routes';
import { getTransfer } from '../../shared/transfers/transfers';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.getTransfer, async ({ request, principal, runtime }) => ({
  body: await getTransfer(runtime, tenantOf(principal), request.params.transferId, { selfOnly: principal.userId }),
}));
