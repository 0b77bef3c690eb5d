import { getTransfer } from '../../shared/wallet/transfers/transfers';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.getTransfer, async ({ request, principal, runtime }) => ({
  body: await getTransfer(runtime, tenantOf(principal), request.params.transferId, { selfOnly: principal.userId }),
}));
