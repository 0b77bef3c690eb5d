import { issueApiKey } from '../../shared/wallet/auth/api-keys';
import { authRoutes } from '../../shared/wallet/auth/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(authRoutes.createApiKey, async ({ request, principal, runtime }) => ({
  body: await issueApiKey(runtime, principal, request.body, request.requestId),
  headers: { 'cache-control': 'no-store' },
}));
