import { readAccessLog } from '../../shared/wallet/tenancy/access-log';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(tenancyRoutes.listAccessLog, async ({ request, principal, runtime }) => ({
  body: await readAccessLog(runtime, request.query, { actor: principal, requestId: request.requestId }),
}));
