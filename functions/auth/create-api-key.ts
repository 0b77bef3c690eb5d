import { issueApiKey } from '../../shared/wallet/auth/api-keys';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/auth/routes')).authRoutes.createApiKey, async ({ request, principal, runtime }) => ({
  body: await issueApiKey(runtime, principal, request.body, request.requestId),
  headers: { 'cache-control': 'no-store' },
}));
