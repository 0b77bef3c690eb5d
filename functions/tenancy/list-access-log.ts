import { readAccessLog } from '../../shared/wallet/tenancy/access-log';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.listAccessLog, async ({ request, principal, runtime }) => ({
  body: await readAccessLog(runtime, request.query, { actor: principal, requestId: request.requestId }),
}));
