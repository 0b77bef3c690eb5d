import { listApiKeys } from '../../shared/wallet/auth/api-keys';
import { authRoutes } from '../../shared/wallet/auth/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(authRoutes.listApiKeys, async ({ request, principal, runtime }) => ({
  body: await listApiKeys(runtime, principal, request.query),
}));
