import type { TransactItem } from '../aws/dynamodb';
import { ConditionsFailed, getItems, queryAll, transact, type Item, type TableDeps } from '../aws/store';
import { shardOf } from '../kernel/ids';
import { SHARDED_MARKER_PARTITIONS, ledgerKeys } from './keys';
import type { AccountDelta, Spread } from './posting-plan';
import type { AccountFacts } from './records';

/**
 * Sharded accounts: a credit-mostly account (tenant revenue, merchant settlement, a rewards pool,
 * payout clearing) spread over K shard items, each its own partition, because one DynamoDB item
 * takes about 1,000 write units a second and a transactional write costs 2 per KB: one item tops
 * out near 500 postings a second (docs/performance.md "Hot accounts").
 *
 *  - A credit (posted up or unchanged, no pending debit) lands on one shard, chosen by the
 *    transaction (or by the pending it reserves or resolves, so a hold and its release meet on the
 *    same shard), and its entry lives in that shard's entries partition (apart from the shard
 *    item, so each partition takes one transactional write per credit).
 *  - Debits, holds and preconditioned legs land on the account's own item, whose `headroom`
 *    condition enforces the floor. A shard only ever gains posted money (sweeps take out at most
 *    what it holds), so the own item never overstates what may be debited: floors stay exact.
 *  - When a debit finds the own item short, the ledger sweeps the shards into it in one
 *    transaction and tries the posting once more (./context.ts); a scheduled sweep does the same
 *    for every sharded account, so debits rarely wait for it.
 *  - Balances are the own item plus the shards; freezing and closing apply to every shard.
 */

/**
 * Where each account's change lands: a sharded account's credit on the shard chosen by `key`; its
 * debits, holds and the accounts a precondition names (`pinned`) on the account's own item.
 */
export function spreadOf(deltas: ReadonlyMap<string, AccountDelta>, facts: ReadonlyMap<string, AccountFacts>, key: string, pinned: Iterable<string> = []): Spread {
  const held = new Set(pinned);
  const landing = new Map<string, number>();
  const shards = new Map<string, number>();
  for (const [accountId, delta] of deltas) {
    const count = facts.get(accountId)?.shards ?? 1;
    if (count <= 1) continue;
    shards.set(accountId, count);
    if (delta.posted >= 0 && delta.pendingDebits === 0 && !held.has(accountId)) landing.set(accountId, shardOf(key, count));
  }
  return { landing, shards };
}

/** A new, empty shard of an account, in the account's status. */
const shardItem = (account: { id: string; ledger_id: string; status: string }, shard: number, stamp: string): Item => ({
  ...ledgerKeys.accountShard(account.id, shard),
  entity: 'account_shard',
  account_id: account.id,
  ledger_id: account.ledger_id,
  status: account.status,
  posted: 0,
  pending_credits: 0,
  updated_at: stamp,
});

/**
 * The writes that create the shard items `create` of an account with `count` shards (its own item at
 * `count` already, or in the same transaction), each only if it is not there yet, and the sweep's
 * list entry saying how many it has. Every shard below `count` must exist: a credit may land on any.
 */
export function newShardItems(table: string, account: { id: string; ledger_id: string; status: string }, shards: { create: readonly number[]; count: number }, stamp: string): TransactItem[] {
  return [
    ...shards.create.map((shard) => ({
      Put: { TableName: table, Item: shardItem(account, shard, stamp), ConditionExpression: 'attribute_not_exists(pk)' },
    })),
    { Put: { TableName: table, Item: markerItem(account, shards.count) } },
  ];
}

/** Shards 0 up to `count`, in order. */
export const shardRange = (count: number): number[] => Array.from({ length: count }, (_, k) => k);

/** The sweep's list entry for an account: where to find it and how many shards it has. */
const markerItem = (account: { id: string; ledger_id: string }, shards: number): Item => ({
  ...ledgerKeys.shardedAccount(account.id),
  entity: 'sharded_account',
  ledger_id: account.ledger_id,
  shards,
});

/** An account's shard items, consistently read, in shard order (undefined: missing). */
export function readShards(deps: TableDeps, accountId: string, shards: number): Promise<(Item | undefined)[]> {
  if (shards <= 1) return Promise.resolve([]);
  return getItems(deps, ledgerKeys.accountShards(accountId, shards));
}

/**
 * Moves what an account's shards hold into its own item, in one transaction: each shard gives up
 * what it was read to hold (conditioned on still holding at least that much, so two concurrent
 * sweeps cannot both take it), and the own item gains the sum. The account's balance does not
 * change, so neither does its version. Returns whether anything was there to move.
 */
export async function sweepShards(deps: TableDeps, accountId: string, shards: number, now: Date): Promise<boolean> {
  const read = await readShards(deps, accountId, shards);
  const moves = read.flatMap((item, shard) => {
    const posted = Number(item?.posted ?? 0);
    const pendingCredits = Number(item?.pending_credits ?? 0);
    // Precondition of every floor check on a sharded account: a shard never holds less than zero.
    if (posted < 0) throw new Error(`invariant broken: shard ${shard} of account ${accountId} holds ${posted}`);
    return posted !== 0 || pendingCredits !== 0 ? [{ shard, posted, pendingCredits }] : [];
  });
  if (moves.length === 0) return false;
  const posted = moves.reduce((sum, move) => sum + move.posted, 0);
  const pendingCredits = moves.reduce((sum, move) => sum + move.pendingCredits, 0);
  const stamp = now.toISOString();
  const items: TransactItem[] = moves.map((move) => ({
    Update: {
      TableName: deps.table,
      Key: ledgerKeys.accountShard(accountId, move.shard),
      UpdateExpression: 'SET updated_at = :now ADD posted :posted, pending_credits :pc',
      ConditionExpression: 'posted >= :held',
      ExpressionAttributeValues: { ':posted': -move.posted, ':pc': -move.pendingCredits, ':held': move.posted, ':now': stamp },
    },
  }));
  items.push({
    Update: {
      TableName: deps.table,
      Key: ledgerKeys.account(accountId),
      UpdateExpression: 'SET updated_at = :now ADD posted :posted, pending_credits :pc, available :posted, headroom :posted',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':posted': posted, ':pc': pendingCredits, ':now': stamp },
    },
  });
  try {
    await transact(deps, items);
  } catch (error) {
    // Another sweep took it first: the money is in the own item all the same.
    if (error instanceof ConditionsFailed) return true;
    throw error;
  }
  return true;
}

/** The scheduled sweep: every sharded account's shards into its own item. Returns how many accounts had something to move. */
export async function sweepAllShards(deps: TableDeps, now: Date): Promise<number> {
  let swept = 0;
  for (let partition = 0; partition < SHARDED_MARKER_PARTITIONS; partition += 1) {
    const markers = queryAll(deps, { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': ledgerKeys.shardedAccountsPartition(partition) } });
    for await (const marker of markers) {
      if (await sweepShards(deps, String(marker.sk), Number(marker.shards), now)) swept += 1;
    }
  }
  return swept;
}
