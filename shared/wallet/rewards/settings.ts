import type * as z from 'zod';
import { getItem, transact } from '../../aws/store';
import { AppError } from '../../kernel/errors';
import type { Principal } from '../../http/principal';
import type { StoreDeps } from '../deps';
import { auditItem } from '../tenancy/audit';
import { rewardKeys } from './keys';
import type { settings, settingsPut } from './schemas';

/** The tenant's points commodity and conversion rate (docs/rewards.md). */

export type RewardSettings = z.infer<typeof settings>;

export async function getSettings(deps: StoreDeps, tenantId: string): Promise<RewardSettings | undefined> {
  const item = await getItem(deps, rewardKeys.settings(tenantId));
  return item ? { points_commodity: String(item.points_commodity), conversion_rate: item.conversion_rate as RewardSettings['conversion_rate'], updated_at: String(item.updated_at) } : undefined;
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
