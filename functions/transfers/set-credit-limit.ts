import { setCreditLimit } from '../../shared/transfers/credit';
import { transferRoutes } from '../../shared/transfers/routes';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(transferRoutes.setCreditLimit, async ({ request, principal, runtime }) => ({
  body: await setCreditLimit(runtime, tenantOf(principal), request.params.userId, request.body.credit_limit, { actor: principal, requestId: request.requestId }),
}));
