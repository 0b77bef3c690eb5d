import { listRefunds } from '../../shared/wallet/payments/refunds';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payments/routes')).paymentRoutes.listRefunds, async ({ request, principal, runtime }) => ({
  body: await listRefunds(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
