import { createHash } from 'node:crypto';
import { updateItem } from '../../aws/store';
import type { StoreDeps } from '../deps';
import { getUserRecord } from '../tenancy/users';
import { topupKeys } from './keys';
import { codec, oneOf, str } from '../../kernel/codec';
import type { DeviceCreate } from './schemas';

export const DEVICE_PLATFORMS = ['ios', 'android', 'web'] as const;

/**
 * Push devices (spec part 4 item 18): where a user's app is told about its top-ups and payments.
 * A push token identifies one app install, so it is stored once per tenant: registering it again
 * refreshes it, and registering it for another user (someone else signed in on that install)
 * moves it to that user.
 */

export interface Device {
  id: string;
  user_id: string;
  platform: DeviceCreate['platform'];
  created_at: string;
  updated_at: string;
}

const decodeDevice = codec<Device>('device', { id: str, user_id: str, platform: oneOf(...DEVICE_PLATFORMS), created_at: str, updated_at: str });

/**
 * Registers (or refreshes) a push token for the tenant's user; `created` is false when the token
 * was registered before. Refuses: user_not_found.
 */
export async function registerDevice(
  deps: StoreDeps,
  tenantId: string,
  input: { user_id: string; platform: DeviceCreate['platform']; push_token: string },
): Promise<{ device: Device; created: boolean }> {
  await getUserRecord(deps, tenantId, input.user_id);
  const tokenHash = createHash('sha256').update(input.push_token, 'utf8').digest('hex');
  const now = deps.clock.now().toISOString();
  const newId = deps.ids();
  const item =
    (await updateItem(deps, topupKeys.device(tenantId, tokenHash), {
      expression:
        'SET entity = :entity, id = if_not_exists(id, :id), tenant_id = :tenant, user_id = :user, platform = :platform, push_token = :token, ' +
        'created_at = if_not_exists(created_at, :now), updated_at = :now, gsi1pk = :index, gsi1sk = if_not_exists(gsi1sk, :id)',
      values: {
        ':entity': 'device',
        ':id': newId,
        ':tenant': tenantId,
        ':user': input.user_id,
        ':platform': input.platform,
        ':token': input.push_token,
        ':now': now,
        ':index': topupKeys.deviceIndex(input.user_id, newId).gsi1pk,
      },
      returnValues: 'ALL_NEW',
    })) ?? {};
  const device = decodeDevice(item);
  return { device, created: device.id === newId };
}
