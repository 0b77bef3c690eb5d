import { registerDevice } from '../../shared/wallet/topups/devices';
import { actingUser } from '../../shared/wallet/topups/create';
import { walletHandler } from '../../shared/runtime/wallet';
import { tenantOf } from '../../shared/wallet/principals';

export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.registerDevice, async ({ request, principal, runtime }) => {
  const { device, created } = await registerDevice(runtime, tenantOf(principal), { ...request.body, user_id: actingUser(principal, request.body.user_id) });
  return { status: created ? 201 : 200, body: device };
});
