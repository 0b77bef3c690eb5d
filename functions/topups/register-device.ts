import { registerDevice } from '../../shared/topups/devices';
import { topupRoutes } from '../../shared/topups/routes';
import { actingUser } from '../../shared/topups/service';
import { tenantOf, walletHandler } from '../../shared/wallet/runtime';

export const handler = walletHandler(topupRoutes.registerDevice, async ({ request, principal, runtime }) => {
  const { device, created } = await registerDevice(runtime, tenantOf(principal), { ...request.body, user_id: actingUser(principal, request.body.user_id) });
  return { status: created ? 201 : 200, body: device };
});
