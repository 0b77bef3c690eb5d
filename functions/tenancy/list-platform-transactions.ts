import { listPlatformTransactions } from '../../shared/wallet/tenancy/platform';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/tenancy/routes')).tenancyRoutes.listPlatformTransactions, async ({ request, principal, runtime }) => ({
  body: (await listPlatformTransactions(runtime, request.query, { actor: principal, requestId: request.requestId })).data,
}));
