import { revokeApiKey } from '../../shared/auth/api-keys';
import { authRoutes } from '../../shared/auth/routes';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(authRoutes.revokeApiKey, async ({ request, principal, runtime }) => ({
  body: await revokeApiKey(runtime, principal, request.params.keyId, request.requestId),
}));
