import { createMerchant } from '../../shared/payments/payments';
import { paymentRoutes } from '../../shared/payments/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(paymentRoutes.createMerchant, async ({ request, principal, runtime }) => ({
  status: 201,
  body: await createMerchant(runtime, tenantOf(principal), request.body),
}));
