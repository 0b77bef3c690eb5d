import { authRoutes } from '../../shared/wallet/auth/routes';
import { issueUserToken } from '../../shared/wallet/auth/tokens';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(authRoutes.createUserToken, async ({ request, principal, runtime }) => ({
  body: await issueUserToken(runtime, principal, request.body),
}));
