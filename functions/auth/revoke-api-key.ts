import { revokeApiKey } from '../../shared/wallet/auth/api-keys';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/auth/routes')).authRoutes.revokeApiKey, async ({ request, principal, runtime }) => ({
  body: await revokeApiKey(runtime, principal, request.params.keyId, request.requestId),
}));
