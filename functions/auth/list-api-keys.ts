import { listApiKeys } from '../../shared/auth/api-keys';
import { authRoutes } from '../../shared/auth/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(authRoutes.listApiKeys, async ({ request, principal, runtime }) => ({
  body: await listApiKeys(runtime, principal, request.query),
}));
