import { listTransfers } from '../../shared/wallet/transfers/transfers';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.listTransfers, async ({ request, principal, runtime }) => ({
  body: await listTransfers(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
