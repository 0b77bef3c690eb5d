import { listApiKeys } from '../../shared/wallet/auth/api-keys';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/auth/routes')).authRoutes.listApiKeys, async ({ request, principal, runtime }) => ({
  body: await listApiKeys(runtime, principal, request.query),
}));
