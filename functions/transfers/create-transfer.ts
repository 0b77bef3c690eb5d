import { createTransfer } from '../../shared/wallet/transfers/transfers';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.createTransfer, async ({ request, principal, runtime }) =>
  outcomeResult(
    await createTransfer(runtime, principal, tenantOf(principal), request.body, {
      // Required by the route: the middleware refused the request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
