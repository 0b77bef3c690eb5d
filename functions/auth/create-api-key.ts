import { issueApiKey } from '../../shared/auth/api-keys';
import { authRoutes } from '../../shared/auth/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(authRoutes.createApiKey, async ({ request, principal, runtime }) => ({
  body: await issueApiKey(runtime, principal, request.body, request.requestId),
  headers: { 'cache-control': 'no-store' },
}));
