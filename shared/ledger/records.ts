import type { Account, Entry, Ledger, LegInput, LegOutput, Pending, Transaction } from './schemas';

/**
 * LedgerTable items to the API's shapes (spec part 2) and back, and the immutable facts cached from
 * them. Transactions and pendings are stored compactly (a leg is one string, absent links are
 * absent) so that a posting's items stay under 1 KB, the unit DynamoDB prices writes by; and their
 * JSON is rendered by one deterministic serializer, so an idempotent replay re-renders the original
 * bytes from the stored item instead of keeping a copy of the body (docs/performance.md).
 */

/** Immutable facts of a ledger or account, safe to cache for the life of a process. */
export interface LedgerFacts {
  id: string;
  consumer_id: string;
  /** How its transactions are kept, fixed at creation (shared/ledger/keys.ts `transaction`). */
  transaction_partitions: number | undefined;
  transaction_shards: number | undefined;
}

export interface AccountFacts {
  id: string;
  ledger_id: string;
  owner_type: string;
  owner_id: string;
  purpose: string;
  commodity: string;
  /**
   * Shards when first read. Not immutable, but only ever raised, and a credit may land on any
   * shard below the current count: a process that remembers fewer spreads less, never wrongly.
   */
  shards: number;
}

export type Item = Record<string, unknown>;

export function legOut(leg: LegInput, facts: Map<string, AccountFacts>): LegOutput {
  const fact = facts.get(leg.account_id)!;
  return { account_id: leg.account_id, owner_type: fact.owner_type, owner_id: fact.owner_id, purpose: fact.purpose, direction: leg.direction, amount: leg.amount, commodity: leg.commodity };
}

export const toLedger = (item: Item): Ledger => ({
  id: String(item.id),
  name: String(item.name),
  commodity: String(item.commodity),
  metadata: (item.metadata as Record<string, string>) ?? {},
  closed_through: (item.closed_through as string | undefined) ?? null,
  created_at: String(item.created_at),
});

/**
 * An account as the API shows it: its own item plus its shards' (a sharded account's credits land
 * on shards; a shard holds only credits: posted and pending credits, never pending debits).
 */
export const toAccount = (item: Item, shardItems: readonly (Item | undefined)[] = []): Account => {
  const shards = shardItems.filter((shard): shard is Item => shard !== undefined);
  const sum = (name: string) => shards.reduce((total, shard) => total + Number(shard[name] ?? 0), 0);
  const updatedAt = shards.reduce((latest, shard) => (String(shard.updated_at) > latest ? String(shard.updated_at) : latest), String(item.updated_at));
  const { shards: count, ...identity } = toAccountFacts(item);
  return {
    ...identity,
    floor: item.unbounded ? null : Number(item.floor),
    status: item.status as Account['status'],
    balance: {
      posted: Number(item.posted) + sum('posted'),
      pending_debits: Number(item.pending_debits),
      pending_credits: Number(item.pending_credits) + sum('pending_credits'),
      available: Number(item.available) + sum('posted'),
    },
    version: Number(item.version),
    shards: count,
    metadata: (item.metadata as Record<string, string>) ?? {},
    created_at: String(item.created_at),
    updated_at: updatedAt,
  };
};

/** How many shards an account item says it has (absent: 1, not spread). */
export const shardsOf = (item: Item): number => Number(item.shards ?? 1);

export const toAccountFacts = (item: Item): AccountFacts => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  owner_type: String(item.owner_type),
  owner_id: String(item.owner_id),
  purpose: String(item.purpose),
  commodity: String(item.commodity),
  shards: shardsOf(item),
});

export const toEntry = (item: Item): Entry => ({
  transaction_id: String(item.transaction_id),
  account_id: String(item.account_id),
  type: String(item.type),
  direction: item.direction as Entry['direction'],
  amount: Number(item.amount),
  commodity: String(item.commodity),
  effective_at: String(item.effective_at),
  created_at: String(item.created_at),
});

/**
 * A leg as stored: `d|account|amount|commodity|owner_type|owner_id|purpose` (`c` for a credit).
 * No field can hold `|`: ids are uuids, owner types and purposes are labels, commodities codes.
 */
export const legToStored = (leg: LegOutput): string =>
  [leg.direction === 'debit' ? 'd' : 'c', leg.account_id, leg.amount, leg.commodity, leg.owner_type, leg.owner_id, leg.purpose].join('|');

function legFromStored(stored: unknown): LegOutput {
  // Items written before legs were compacted hold them as maps.
  if (typeof stored !== 'string') return legInOrder(stored as LegOutput);
  const [direction, account_id, amount, commodity, owner_type, owner_id, purpose] = stored.split('|') as [string, string, string, string, string, string, string];
  return { account_id, owner_type, owner_id, purpose, direction: direction === 'd' ? 'debit' : 'credit', amount: Number(amount), commodity };
}

/** The API's field order of a leg, whatever order it was read in. */
const legInOrder = (leg: LegOutput): LegOutput => ({
  account_id: leg.account_id,
  owner_type: leg.owner_type,
  owner_id: leg.owner_id,
  purpose: leg.purpose,
  direction: leg.direction,
  amount: leg.amount,
  commodity: leg.commodity,
});

/** Metadata keys in code-unit order: DynamoDB keeps no order in a map, so the answer fixes one. */
const sortedMetadata = (metadata: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(metadata ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Only what is set: an absent link or empty metadata costs no bytes in the item. */
const present = (fields: Record<string, unknown>): Item =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined && !(typeof value === 'object' && Object.keys(value).length === 0)));

/** A transaction's stored attributes (keys and index keys are the caller's). */
export const transactionAttributes = (t: Transaction): Item => ({
  entity: 'transaction',
  id: t.id,
  ledger_id: t.ledger_id,
  type: t.type,
  ...present({ reference_id: t.reference_id, metadata: sortedMetadata(t.metadata), exchange_id: t.exchange_id, reverses_txn_id: t.reverses_txn_id, reversed_by: t.reversed_by, pending_id: t.pending_id }),
  legs: t.legs.map(legToStored),
  effective_at: t.effective_at,
  created_at: t.created_at,
});

export const toTransaction = (item: Item): Transaction => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  type: String(item.type),
  status: 'posted',
  reference_id: (item.reference_id as string | null | undefined) ?? null,
  metadata: sortedMetadata(item.metadata as Record<string, string> | undefined),
  exchange_id: (item.exchange_id as string | null | undefined) ?? null,
  reverses_txn_id: (item.reverses_txn_id as string | null | undefined) ?? null,
  reversed_by: (item.reversed_by as string | null | undefined) ?? null,
  pending_id: (item.pending_id as string | null | undefined) ?? null,
  legs: (item.legs as unknown[]).map(legFromStored),
  effective_at: String(item.effective_at),
  created_at: String(item.created_at),
});

/** A pending's stored attributes (keys and index keys are the caller's). */
export const pendingAttributes = (p: Pending): Item => ({
  entity: 'pending',
  id: p.id,
  ledger_id: p.ledger_id,
  type: p.type,
  status: p.status,
  ...present({ reference_id: p.reference_id, metadata: sortedMetadata(p.metadata), expires_at: p.expires_at, transaction_id: p.transaction_id, resolved_at: p.resolved_at }),
  legs: p.legs.map(legToStored),
  created_at: p.created_at,
});

export const toPending = (item: Item): Pending => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  type: String(item.type),
  status: item.status as Pending['status'],
  reference_id: (item.reference_id as string | null | undefined) ?? null,
  metadata: sortedMetadata(item.metadata as Record<string, string> | undefined),
  legs: (item.legs as unknown[]).map(legFromStored),
  expires_at: (item.expires_at as string | null | undefined) ?? null,
  transaction_id: (item.transaction_id as string | null | undefined) ?? null,
  created_at: String(item.created_at),
  resolved_at: (item.resolved_at as string | null | undefined) ?? null,
});

/**
 * THE serializer of a transaction's JSON: fields in the API's order, legs in theirs, metadata
 * sorted. The first answer and every replay (re-rendered from the stored item) go through it, so
 * they are the same bytes (spec ledger rule 4).
 */
export const transactionJson = (t: Transaction): string =>
  JSON.stringify({
    id: t.id,
    ledger_id: t.ledger_id,
    type: t.type,
    status: t.status,
    reference_id: t.reference_id,
    metadata: sortedMetadata(t.metadata),
    exchange_id: t.exchange_id,
    reverses_txn_id: t.reverses_txn_id,
    reversed_by: t.reversed_by,
    pending_id: t.pending_id,
    legs: t.legs.map(legInOrder),
    effective_at: t.effective_at,
    created_at: t.created_at,
  });

/** THE serializer of a pending's JSON (see transactionJson). */
export const pendingJson = (p: Pending): string =>
  JSON.stringify({
    id: p.id,
    ledger_id: p.ledger_id,
    type: p.type,
    status: p.status,
    reference_id: p.reference_id,
    metadata: sortedMetadata(p.metadata),
    legs: p.legs.map(legInOrder),
    expires_at: p.expires_at,
    transaction_id: p.transaction_id,
    created_at: p.created_at,
    resolved_at: p.resolved_at,
  });
