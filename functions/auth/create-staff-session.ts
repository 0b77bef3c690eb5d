import { createStaffSession } from '../../shared/wallet/auth/staff';
import { walletHandler } from '../../shared/runtime/wallet';

export const handler = walletHandler(async () => (await import('../../shared/wallet/auth/routes')).authRoutes.createStaffSession, async ({ request, runtime }) => ({
  body: await createStaffSession(runtime, request.body),
  // A session token is a credential: no cache may keep it.
  headers: { 'cache-control': 'no-store' },
}));
