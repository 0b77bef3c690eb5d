import type * as z from '../../kernel/zod';
import { ConditionsFailed, getItem, queryAll, queryPage, transact, type Item, type Page } from '../../aws/store';
import { codec, int, mapOf, nullable, obj, oneOf, opt, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { ClientRecord } from '../catalog/clients';
import { readOffering } from '../catalog/records';
import type { StoreDeps } from '../deps';
import { rewardKeys } from './keys';
import type { rule, ruleCreate, ruleListQuery } from './schemas';

/**
 * Reward rules (spec part 4 item 15): one live rule per slot (client, offering or none, kind); a
 * per-offering rule overrides the client's common one for that offering's lines. Disabling frees
 * the slot; the next rule in it gets the next version.
 */

export type RewardRule = z.infer<typeof rule>;

/** A rule's params by its kind, as its body was checked (../rewards/schemas.ts): integers, the amounts in minor units. */
const paramsOf = {
  cashback: obj<{ bps: number; flat: number }>({ bps: int, flat: int }),
  accrual: obj<{ points: number; per_amount: number }>({ points: int, per_amount: int }),
};

/** The reward rule item's codec (../../kernel/codec.ts; kinds and statuses spelt here, so capture does not build the API's schemas). */
const decodeRule = codec<RewardRule>('reward_rule', {
  id: str,
  client_id: str,
  offering_id: nullable(str),
  kind: oneOf('cashback', 'accrual'),
  params: mapOf(int),
  scope: obj<RewardRule['scope']>({ min_amount: opt(int) }),
  caps: obj<RewardRule['caps']>({ per_payment: opt(int), per_user_per_day: opt(int) }),
  starts_at: nullable(str),
  ends_at: nullable(str),
  version: int,
  status: oneOf('active', 'disabled'),
  created_at: str,
  disabled_at: nullable(str),
});

/** A rule, its params checked for its kind (earning reads them as such). */
const toRule = (item: Item): RewardRule => {
  const rule = decodeRule(item);
  paramsOf[rule.kind](rule.params, 'reward_rule', 'params');
  return rule;
};

/** A rule's slot: the live rule in it, if any, and the last version given out there. */
const toSlot = codec<{ live_rule_id?: string; last_version: number }>('reward_slot', { live_rule_id: opt(str), last_version: int });

/**
 * Creates a rule in a free slot (its kind's params were checked with the body). Refuses:
 * invalid_request (caps on an accrual rule, window), offering_not_found, rule_exists.
 */
export async function createRule(deps: StoreDeps, client: ClientRecord, input: z.infer<typeof ruleCreate>): Promise<RewardRule> {
  if (input.kind === 'accrual' && (input.caps.per_payment !== undefined || input.caps.per_user_per_day !== undefined)) {
    throw new AppError('invalid_request', 'caps apply to cashback rules.', { errors: [{ field: 'caps', message: 'cashback only' }] });
  }
  if (input.starts_at && input.ends_at && input.ends_at <= input.starts_at) throw new AppError('invalid_request', 'ends_at must follow starts_at.', { errors: [{ field: 'ends_at', message: 'before starts_at' }] });
  if (input.offering_id) {
    const found = await readOffering(deps, input.offering_id);
    if (!found || found.offering.client_id !== client.id) throw new AppError('offering_not_found', `No offering ${input.offering_id}.`);
  }
  const slotKey = rewardKeys.slot(client.id, input.offering_id ?? null, input.kind);
  const slotItem = await getItem(deps, slotKey);
  const slot = slotItem ? toSlot(slotItem) : undefined;
  if (slot?.live_rule_id) throw new AppError('rule_exists', `Rule ${slot.live_rule_id} already occupies this slot: disable it first.`);
  const now = deps.clock.now().toISOString();
  const created: RewardRule = {
    id: deps.ids(),
    client_id: client.id,
    offering_id: input.offering_id ?? null,
    kind: input.kind,
    params: input.params as Record<string, number>,
    scope: input.scope,
    caps: input.caps,
    starts_at: input.starts_at ?? null,
    ends_at: input.ends_at ?? null,
    version: (slot?.last_version ?? 0) + 1,
    status: 'active',
    created_at: now,
    disabled_at: null,
  };
  try {
    await transact(deps, [
      {
        Put: {
          TableName: deps.table,
          Item: { ...slotKey, entity: 'reward_slot', live_rule_id: created.id, last_version: created.version },
          ConditionExpression: slot ? 'last_version = :version AND attribute_not_exists(live_rule_id)' : 'attribute_not_exists(pk)',
          ...(slot ? { ExpressionAttributeValues: { ':version': slot.last_version } } : {}),
        },
      },
      { Put: { TableName: deps.table, Item: { ...rewardKeys.rule(created.id), entity: 'reward_rule', tenant_id: client.tenant_id, gsi1pk: rewardKeys.clientRules(client.id), gsi1sk: created.id, ...created } } },
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed) throw new AppError('rule_exists', 'Another rule took this slot first.');
    throw error;
  }
  return created;
}

export async function listRules(deps: StoreDeps, client: ClientRecord, query: z.infer<typeof ruleListQuery>): Promise<Page<RewardRule>> {
  const page = await queryPage(deps, { index: 'gsi1', partition: rewardKeys.clientRules(client.id), cursor: query.cursor, created: query, limit: query.limit });
  return { data: page.items.map(toRule), next_cursor: page.next_cursor };
}

/** Disables a rule and frees its slot (disabling a disabled one changes nothing). Refuses: not_found. */
export async function disableRule(deps: StoreDeps, client: ClientRecord, ruleId: string): Promise<RewardRule> {
  const item = await getItem(deps, rewardKeys.rule(ruleId));
  if (!item || item.client_id !== client.id) throw new AppError('not_found', `No reward rule ${ruleId}.`);
  const before = toRule(item);
  if (before.status === 'disabled') return before;
  const after: RewardRule = { ...before, status: 'disabled', disabled_at: deps.clock.now().toISOString() };
  await transact(deps, [
    { Update: { TableName: deps.table, Key: rewardKeys.rule(ruleId), UpdateExpression: 'SET #status = :disabled, disabled_at = :at', ConditionExpression: '#status = :active', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':disabled': 'disabled', ':at': after.disabled_at, ':active': 'active' } } },
    { Update: { TableName: deps.table, Key: rewardKeys.slot(client.id, before.offering_id, before.kind), UpdateExpression: 'REMOVE live_rule_id', ConditionExpression: 'live_rule_id = :rule', ExpressionAttributeValues: { ':rule': ruleId } } },
  ]);
  return after;
}

/** The client's live rules, by slot. */
export async function liveRules(deps: StoreDeps, clientId: string): Promise<RewardRule[]> {
  const found: RewardRule[] = [];
  for await (const item of queryAll(deps, { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': rewardKeys.clientRules(clientId) } })) {
    if (item.status === 'active') found.push(toRule(item));
  }
  return found;
}
