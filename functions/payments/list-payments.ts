import { listPayments } from '../../shared/wallet/payments/payments';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/payments/routes')).paymentRoutes.listPayments, async ({ request, principal, runtime }) => ({
  body: await listPayments(runtime, tenantOf(principal), request.query, { selfOnly: principal.userId }),
}));
