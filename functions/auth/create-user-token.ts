import { authRoutes } from '../../shared/auth/routes';
import { issueUserToken } from '../../shared/auth/tokens';
import { walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(authRoutes.createUserToken, async ({ request, principal, runtime }) => ({
  body: await issueUserToken(runtime, principal, request.body),
}));
