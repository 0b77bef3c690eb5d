import { transferRoutes } from '../../shared/wallet/transfers/routes';
import { getTransfer } from '../../shared/wallet/transfers/transfers';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(transferRoutes.getTransfer, async ({ request, principal, runtime }) => ({
  body: await getTransfer(runtime, tenantOf(principal), request.params.transferId, { selfOnly: principal.userId }),
}));
