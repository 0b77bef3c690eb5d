import type * as z from '../../kernel/zod';
import { getItem, transact } from '../../aws/store';
import { codec, int, obj, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { Principal } from '../../http/principal';
import type { StoreDeps } from '../deps';
import { auditItem } from '../tenancy/audit';
import { rewardKeys } from './keys';
import type { settings, settingsPut } from './schemas';

/** The tenant's points commodity and conversion rate (docs/rewards.md). */

export type RewardSettings = z.infer<typeof settings>;

/** The settings item's codec (../../kernel/codec.ts): the rate is two integers. */
const toSettings = codec<RewardSettings>('reward_settings', {
  points_commodity: str,
  conversion_rate: obj<RewardSettings['conversion_rate']>({ points: int, cash: int }),
  updated_at: str,
});

export async function getSettings(deps: StoreDeps, tenantId: string): Promise<RewardSettings | undefined> {
  const item = await getItem(deps, rewardKeys.settings(tenantId));
  return item ? toSettings(item) : undefined;
}

/** Sets them, audited. The points already issued keep their commodity: it can be set, not changed. */
export async function putSettings(deps: StoreDeps, actor: Principal, tenantId: string, input: z.infer<typeof settingsPut>, requestId: string): Promise<RewardSettings> {
  const before = await getSettings(deps, tenantId);
  if (before && before.points_commodity !== input.points_commodity) {
    throw new AppError('invalid_request', `points_commodity is ${before.points_commodity}: points already issued keep it.`, { errors: [{ field: 'points_commodity', message: 'cannot change' }] });
  }
  const after: RewardSettings = { ...input, updated_at: deps.clock.now().toISOString() };
  await transact(deps, [
    { Put: { TableName: deps.table, Item: { ...rewardKeys.settings(tenantId), entity: 'reward_settings', tenant_id: tenantId, ...after } } },
    auditItem(deps, { tenantId, actor, action: 'reward_settings.set', target: { type: 'tenant', id: tenantId }, before, after, requestId }),
  ]);
  return after;
}
