import type { TransactItem } from '../aws/dynamodb';
import { mergedPage } from '../aws/merged-pages';
import { getItem } from '../aws/store';
import type { Outcome } from '../http/outcome';
import { AppError } from '../kernel/errors';
import { idempotent, type LedgerContext } from './context';
import { ledgerOf } from './facts';
import type { IdempotencyContext } from './idempotency';
import { ledgerKeys } from './keys';
import { shardsOf, toAccount, toEntry, type Item } from './records';
import type { Account, Entry } from './schemas';
import { newShardItems, readShards, shardRange } from './shards';

/** Accounts: opening, reading, entries (refusals documented on LedgerService; changes: ./account-changes.ts). */

export async function openAccount(
  context: LedgerContext,
  consumerId: string,
  ledgerId: string,
  input: { owner_type: string; owner_id: string; purpose: string; commodity: string; floor: number | null; shards?: number; metadata?: Record<string, string> },
  idem?: IdempotencyContext,
): Promise<Outcome> {
  await ledgerOf(context, consumerId, ledgerId);
  const table = context.deps.table;
  return idempotent(context, idem, async (now) => {
    const id = context.deps.ids();
    const floor = input.floor;
    const shards = input.shards ?? 1;
    const stamp = now.toISOString();
    const item = {
      ...ledgerKeys.account(id),
      ...ledgerKeys.accountIndex(ledgerId, id),
      entity: 'account',
      id,
      ledger_id: ledgerId,
      owner_type: input.owner_type,
      owner_id: input.owner_id,
      purpose: input.purpose,
      commodity: input.commodity,
      floor: floor ?? 0,
      unbounded: floor === null,
      status: 'active',
      posted: 0,
      pending_debits: 0,
      pending_credits: 0,
      available: 0,
      headroom: floor === null ? 0 : -floor,
      version: 0,
      ...(shards > 1 ? { shards } : {}),
      metadata: input.metadata ?? {},
      created_at: stamp,
      updated_at: stamp,
    };
    const items: TransactItem[] = [
      { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: table,
          Item: { ...ledgerKeys.accountUnique(ledgerId, input), entity: 'account_key', account_id: id },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ];
    // A sharded account opens with all its shards, so every credit finds its shard's status there.
    if (shards > 1) items.push(...newShardItems(table, item, { create: shardRange(shards), count: shards }, stamp));
    return {
      items,
      roles: items.map((_, index) => (index === 1 ? { kind: 'unique' as const } : { kind: 'record' as const })),
      status: 201,
      body: JSON.stringify(toAccount(item)),
      diagnose: (failure) =>
        failure.role.kind === 'unique' ? new AppError('conflict', `An account for this owner, purpose and commodity exists: ${String(failure.item?.account_id)}.`) : undefined,
    };
  });
}

/** The account's own item, if it is in this consumer's ledger. Refuses: ledger_not_found, account_not_found. */
export async function accountItem(context: LedgerContext, consumerId: string, ledgerId: string, accountId: string): Promise<Item> {
  await ledgerOf(context, consumerId, ledgerId);
  const item = await getItem(context.deps, ledgerKeys.account(accountId));
  if (!item || item.ledger_id !== ledgerId) throw new AppError('account_not_found', `No account ${accountId} in this ledger.`);
  return item;
}

export async function getAccount(context: LedgerContext, consumerId: string, ledgerId: string, accountId: string): Promise<Account> {
  const item = await accountItem(context, consumerId, ledgerId, accountId);
  return toAccount(item, await readShards(context.deps, accountId, shardsOf(item)));
}

/** Newest first across the account's own partition and its shards' (a sharded account's credits keep their entries there). */
export async function listEntries(context: LedgerContext, consumerId: string, ledgerId: string, accountId: string, cursor: string | undefined, limit: number): Promise<{ data: Entry[]; next_cursor: string | null }> {
  const item = await accountItem(context, consumerId, ledgerId, accountId);
  const page = await mergedPage(context.deps, {
    partitions: ledgerKeys.entryPartitions(accountId, shardsOf(item)),
    ...ledgerKeys.entryRange,
    binding: { listing: 'entries', owner: accountId },
    cursor,
    limit,
    consistent: true,
    invalidCode: 'invalid',
  });
  return { data: page.items.map(toEntry), next_cursor: page.next_cursor };
}
