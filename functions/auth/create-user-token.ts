import { issueUserToken } from '../../shared/wallet/auth/tokens';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/auth/routes')).authRoutes.createUserToken, async ({ request, principal, runtime }) => ({
  body: await issueUserToken(runtime, principal, request.body),
}));
