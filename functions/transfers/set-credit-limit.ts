import { setCreditLimit } from '../../shared/wallet/transfers/credit';
import { transferRoutes } from '../../shared/wallet/transfers/routes';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(transferRoutes.setCreditLimit, async ({ request, principal, runtime }) => ({
  body: await setCreditLimit(runtime, tenantOf(principal), request.params.userId, request.body.credit_limit, { actor: principal, requestId: request.requestId }),
}));
