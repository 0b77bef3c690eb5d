import { getItem, getItems, queryAll, type TableDeps } from '../aws/store';
import { AppError } from '../kernel/errors';
import { ACCOUNT_INDEX_SHARDS, ledgerKeys } from './keys';
import { shardsOf, toAccount, toAccountFacts, toPending, type AccountFacts, type Item, type LedgerFacts } from './records';
import type { Account, Pending } from './schemas';

/**
 * What the fact reads need of a ledger context (./context.ts): the table, and the process's caches
 * of facts that never change.
 */
export interface FactsContext {
  deps: TableDeps;
  ledgerFacts: Map<string, LedgerFacts>;
  accountFacts: Map<string, AccountFacts>;
}

/** Lookups every operation starts with: who owns a ledger, what an account is, an open pending. */

const FACTS_CACHE_LIMIT = 50_000;

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= FACTS_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}

/** The ledger, if this consumer owns it. Refuses: ledger_not_found (also for another consumer's ledger). */
export async function ledgerOf(context: FactsContext, consumerId: string, ledgerId: string): Promise<LedgerFacts> {
  const facts = await ledgerOfAnyConsumer(context, ledgerId).catch((error: unknown) => {
    if (error instanceof AppError) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
    throw error;
  });
  if (facts.consumer_id !== consumerId) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
  return facts;
}

/** The ledger's owner, for workers that act for whichever consumer owns it. Refuses: ledger_not_found. */
export async function ledgerOfAnyConsumer(context: FactsContext, ledgerId: string): Promise<LedgerFacts> {
  const cached = context.ledgerFacts.get(ledgerId);
  if (cached) return cached;
  const item = await getItem(context.deps, ledgerKeys.ledger(ledgerId));
  if (!item) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
  const count = (value: unknown) => (value === undefined ? undefined : Number(value));
  const facts = { id: ledgerId, consumer_id: String(item.consumer_id), transaction_partitions: count(item.transaction_partitions), transaction_shards: count(item.transaction_shards) };
  remember(context.ledgerFacts, ledgerId, facts);
  return facts;
}

/** Immutable facts of the accounts, from cache or consistent BatchGets. Refuses: account_not_found. */
export async function accountsOf(context: FactsContext, ledgerId: string, accountIds: string[]): Promise<Map<string, AccountFacts>> {
  const unique = [...new Set(accountIds)];
  const missing = unique.filter((id) => !context.accountFacts.has(id));
  const items = await getItems(context.deps, missing.map((id) => ledgerKeys.account(id)), { projection: 'id, ledger_id, owner_type, owner_id, purpose, commodity, shards' });
  for (const item of items) if (item) remember(context.accountFacts, String(item.id), toAccountFacts(item));
  const facts = new Map<string, AccountFacts>();
  for (const id of unique) {
    const fact = context.accountFacts.get(id);
    if (!fact || fact.ledger_id !== ledgerId) throw new AppError('account_not_found', `No account ${id} in this ledger.`);
    facts.set(id, fact);
  }
  return facts;
}

/** Every account of a ledger, with balances (the rollup). */
export async function allAccounts(context: FactsContext, ledgerId: string): Promise<Account[]> {
  const keys: { pk: string; sk: string }[] = [];
  for (let shard = 0; shard < ACCOUNT_INDEX_SHARDS; shard += 1) {
    const indexed = queryAll(context.deps, {
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': ledgerKeys.accountIndexShard(ledgerId, shard) },
    });
    for await (const item of indexed) keys.push({ pk: String(item.pk), sk: String(item.sk) });
  }
  const own = (await getItems(context.deps, keys)).filter((item): item is Item => item !== undefined);
  // Shards of every sharded account (a ledger holds many merchants: getItems reads them 100 at a time).
  const shardKeys = own.flatMap((item) => (shardsOf(item) > 1 ? ledgerKeys.accountShards(String(item.id), shardsOf(item)) : []));
  const shards = new Map<string, Item[]>();
  for (const shard of await getItems(context.deps, shardKeys)) {
    if (shard) shards.set(String(shard.account_id), [...(shards.get(String(shard.account_id)) ?? []), shard]);
  }
  return own.map((item) => toAccount(item, shards.get(String(item.id)) ?? []));
}

/** A pending posting that can still be posted or voided. Refuses: pending_not_found, conflict. */
export async function openPending(context: FactsContext, ledgerId: string, pendingId: string, now: Date, options: { allowExpired?: boolean } = {}): Promise<Pending> {
  const item = await getItem(context.deps, ledgerKeys.pending(pendingId));
  if (!item || item.ledger_id !== ledgerId) throw new AppError('pending_not_found', `No pending posting ${pendingId} in this ledger.`);
  const pending = toPending(item);
  if (pending.status !== 'pending') throw new AppError('conflict', `The pending posting is already ${pending.status}.`);
  if (!options.allowExpired && pending.expires_at && new Date(pending.expires_at).getTime() <= now.getTime()) {
    throw new AppError('conflict', 'The pending posting has expired.');
  }
  return pending;
}
