import { listPlatformTransactions } from '../../shared/tenancy/platform';
import { tenancyRoutes } from '../../shared/tenancy/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(tenancyRoutes.listPlatformTransactions, async ({ request, principal, runtime }) => ({
  body: await listPlatformTransactions(runtime, request.query, { actor: principal, requestId: request.requestId }),
}));
