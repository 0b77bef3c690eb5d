import type { Account, Entry, Ledger, LegInput, LegOutput, Pending, Transaction } from './schemas';

/** LedgerTable items to the API's shapes (spec part 2), and the immutable facts cached from them. */

/** Immutable facts of a ledger or account, safe to cache for the life of a process. */
export interface LedgerFacts {
  id: string;
  consumer_id: string;
}

export interface AccountFacts {
  id: string;
  ledger_id: string;
  owner_type: string;
  owner_id: string;
  purpose: string;
  commodity: string;
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

export const toAccount = (item: Item): Account => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  owner_type: String(item.owner_type),
  owner_id: String(item.owner_id),
  purpose: String(item.purpose),
  commodity: String(item.commodity),
  floor: item.unbounded ? null : Number(item.floor),
  status: item.status as Account['status'],
  balance: {
    posted: Number(item.posted),
    pending_debits: Number(item.pending_debits),
    pending_credits: Number(item.pending_credits),
    available: Number(item.available),
  },
  version: Number(item.version),
  metadata: (item.metadata as Record<string, string>) ?? {},
  created_at: String(item.created_at),
  updated_at: String(item.updated_at),
});

export const toAccountFacts = (item: Item): AccountFacts => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  owner_type: String(item.owner_type),
  owner_id: String(item.owner_id),
  purpose: String(item.purpose),
  commodity: String(item.commodity),
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

export const toTransaction = (item: Item): Transaction => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  type: String(item.type),
  status: 'posted',
  reference_id: (item.reference_id as string | null) ?? null,
  metadata: (item.metadata as Record<string, string>) ?? {},
  exchange_id: (item.exchange_id as string | null) ?? null,
  reverses_txn_id: (item.reverses_txn_id as string | null) ?? null,
  reversed_by: (item.reversed_by as string | null) ?? null,
  pending_id: (item.pending_id as string | null) ?? null,
  legs: item.legs as LegOutput[],
  effective_at: String(item.effective_at),
  created_at: String(item.created_at),
});

export const toPending = (item: Item): Pending => ({
  id: String(item.id),
  ledger_id: String(item.ledger_id),
  type: String(item.type),
  status: item.status as Pending['status'],
  reference_id: (item.reference_id as string | null) ?? null,
  metadata: (item.metadata as Record<string, string>) ?? {},
  legs: item.legs as LegOutput[],
  expires_at: (item.expires_at as string | null) ?? null,
  transaction_id: (item.transaction_id as string | null) ?? null,
  created_at: String(item.created_at),
  resolved_at: (item.resolved_at as string | null) ?? null,
});
