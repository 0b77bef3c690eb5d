import { listPlatformTransactions } from '../../shared/wallet/tenancy/platform';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(tenancyRoutes.listPlatformTransactions, async ({ request, principal, runtime }) => ({
  body: (await listPlatformTransactions(runtime, request.query, { actor: principal, requestId: request.requestId })).data,
}));
