import { revokeApiKey } from '../../shared/wallet/auth/api-keys';
import { authRoutes } from '../../shared/wallet/auth/routes';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(authRoutes.revokeApiKey, async ({ request, principal, runtime }) => ({
  body: await revokeApiKey(runtime, principal, request.params.keyId, request.requestId),
}));
