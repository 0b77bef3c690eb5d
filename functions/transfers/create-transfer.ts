import { transferRoutes } from '../../shared/transfers/routes';
import { createTransfer } from '../../shared/transfers/transfers';
import { outcomeResult } from '../../shared/http/outcome';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.createTransfer, async ({ request, principal, runtime }) =>
  outcomeResult(
    await createTransfer(runtime, principal, tenantOf(principal), request.body, {
      // Required by the route: the middleware refused the request without one.
      idempotencyKey: request.idempotencyKey!,
      requestId: request.requestId,
    }),
  ),
);
