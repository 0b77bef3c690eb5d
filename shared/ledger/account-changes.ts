import type { TransactItem } from '../aws/dynamodb';
import { ConditionsFailed, getItem, transact } from '../aws/store';
import { AppError } from '../kernel/errors';
import { POLICIES, retrying } from '../kernel/retry';
import type { LedgerContext } from './context';
import { accountItem, getAccount } from './accounts';
import { ledgerKeys } from './keys';
import { shardsOf } from './records';
import type { Account } from './schemas';
import { newShardItems, readShards, sweepShards } from './shards';

/**
 * Changes to an account: its floor, its status (on every shard too) and its shard count (raised
 * only). One transaction each; refusals documented on LedgerService.
 */

type Patch = { floor?: number | null; status?: 'active' | 'frozen' | 'closed'; shards?: number };

export async function updateAccount(context: LedgerContext, consumerId: string, ledgerId: string, accountId: string, patch: Patch): Promise<Account> {
  return retrying(POLICIES.contended, async () => {
    const current = await accountItem(context, consumerId, ledgerId, accountId);
    if (current.status === 'closed') throw new AppError('account_closed', 'A closed account cannot change.');
    const shards = shardsOf(current);
    if (patch.shards !== undefined && patch.shards < shards) throw new AppError('invalid', `An account's shards can only be raised; it has ${shards}.`);
    const now = context.deps.clock.now();
    // A floor or a close is judged on the own item alone: what the shards hold moves there first.
    if (shards > 1 && (patch.floor !== undefined || patch.status === 'closed')) await sweepShards(context.deps, accountId, shards, now);
    // Which shard items exist below the count the change leaves: none on an account raised from one
    // shard, and any an earlier raise failed to create (it began at shard 1) is created now.
    const count = Math.max(shards, patch.shards ?? 1);
    const present = (await readShards(context.deps, accountId, count)).map((item) => item !== undefined);
    const change = changeItems(context, ledgerId, current, patch, present, now);
    try {
      await transact(context.deps, change.items);
    } catch (error) {
      if (!(error instanceof ConditionsFailed)) throw error;
      const refusal = await refusalOf(context, accountId, patch, current, error, change.creations);
      throw refusal ?? new StaleAccount();
    }
    return getAccount(context, consumerId, ledgerId, accountId);
  }, {
    retryable: (error) => error instanceof StaleAccount,
    exhausted: () => new AppError('service_unavailable', 'The account kept changing under this request; retry it.'),
    timing: context.deps,
  });
}

/** The read a change was built on went stale (a concurrent change): read again. */
class StaleAccount extends Error {
  override readonly name = 'StaleAccount';
}

/**
 * The own item's update, each existing shard's status, and every missing shard below the count
 * (with the sweep's marker). `creations`: the indexes of the shard items it creates.
 */
function changeItems(context: LedgerContext, ledgerId: string, current: Record<string, unknown>, patch: Patch, present: readonly boolean[], now: Date): { items: TransactItem[]; creations: Set<number> } {
  const table = context.deps.table;
  const accountId = String(current.id);
  const shards = shardsOf(current);
  const raised = patch.shards !== undefined && patch.shards > shards ? patch.shards : undefined;
  const missing = present.flatMap((there, shard) => (there ? [] : [shard]));
  const stamp = now.toISOString();
  const sets = ['updated_at = :now'];
  const conditions = ['#status <> :closed', 'ledger_id = :ledger'];
  const values: Record<string, unknown> = { ':now': stamp, ':closed': 'closed', ':ledger': ledgerId, ':one': 1 };
  if (patch.floor !== undefined) {
    sets.push('floor = :floor', 'unbounded = :unbounded', 'headroom = available - :floor');
    values[':floor'] = patch.floor ?? 0;
    values[':unbounded'] = patch.floor === null;
    if (patch.floor !== null) conditions.push('available >= :floor');
  }
  if (patch.status !== undefined) {
    sets.push('#status = :status');
    values[':status'] = patch.status;
    if (patch.status === 'closed') {
      conditions.push('posted = :zero AND pending_debits = :zero AND pending_credits = :zero');
      values[':zero'] = 0;
    }
  }
  const status = patch.status ?? String(current.status);
  if (raised !== undefined) {
    sets.push('shards = :shards');
    values[':shards'] = raised;
  }
  if (missing.length > 0) {
    // New shards take the status read: it must still hold, as must the count they fill.
    conditions.push(shards > 1 ? 'shards = :was' : 'attribute_not_exists(shards)', '#status = :seen');
    if (shards > 1) values[':was'] = shards;
    values[':seen'] = current.status;
  }
  const items: TransactItem[] = [
    {
      Update: {
        TableName: table,
        Key: ledgerKeys.account(accountId),
        UpdateExpression: `SET ${sets.join(', ')} ADD version :one`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ];
  if (patch.status !== undefined) {
    const closing = patch.status === 'closed';
    for (let shard = 0; shard < present.length; shard += 1) {
      if (!present[shard]) continue;
      items.push({
        Update: {
          TableName: table,
          Key: ledgerKeys.accountShard(accountId, shard),
          UpdateExpression: 'SET #status = :status, updated_at = :now',
          // Closing needs every shard empty: a credit that landed after the sweep keeps it open.
          ConditionExpression: closing ? 'posted = :zero AND pending_credits = :zero' : 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': patch.status, ':now': stamp, ...(closing ? { ':zero': 0 } : {}) },
        },
      });
    }
  }
  const creations = new Set<number>();
  if (missing.length > 0) {
    const first = items.length;
    items.push(...newShardItems(table, { id: accountId, ledger_id: ledgerId, status }, { create: missing, count: present.length }, stamp));
    missing.forEach((_, k) => creations.add(first + k));
  }
  return { items, creations };
}

/** Why a change was refused, or undefined when the read it was built on went stale (try again). */
async function refusalOf(context: LedgerContext, accountId: string, patch: Patch, read: Record<string, unknown>, error: ConditionsFailed, creations: ReadonlySet<number>): Promise<AppError | undefined> {
  const item = await getItem(context.deps, ledgerKeys.account(accountId));
  if (item?.status === 'closed') return new AppError('account_closed', 'A closed account cannot change.');
  if (item && (shardsOf(item) !== shardsOf(read) || item.status !== read.status)) return undefined;
  // A shard this change meant to create was created by another one first: read again.
  if (error.indexes.some((index) => creations.has(index))) return undefined;
  if (patch.status === 'closed') return new AppError('invalid', 'Only an account with nothing posted or pending can be closed.');
  if (error.indexes.some((index) => index > 0)) return undefined;
  return new AppError('insufficient_funds', 'The available balance is below the requested floor.');
}
