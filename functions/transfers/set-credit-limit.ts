import { setCreditLimit } from '../../shared/wallet/transfers/credit';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/transfers/routes')).transferRoutes.setCreditLimit, async ({ request, principal, runtime }) =>
  outcomeResult(
    await setCreditLimit(runtime, principal, tenantOf(principal), request.params.userId, request.body.credit_limit, {
      idempotencyKey: request.idempotencyKey,
      requestId: request.requestId,
    }),
  ),
);
