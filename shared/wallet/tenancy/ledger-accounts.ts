import { LedgerRefusal } from '../../ledger-client/client';
import type { AccountRequest } from '../../ledger-client/contract';
import type { TenancyLedger, WalletDeps } from '../deps';
import { ledgerKeyOf } from '../saga/registry';

const UUID_AT_END = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.?$/;

/**
 * Opens a ledger account exactly once and returns its id. A retry inside the ledger's idempotency
 * window replays the first answer; after it, the ledger refuses the duplicate with `conflict`
 * naming the existing account (its uniqueness is per owner, purpose and commodity), and that
 * account is the one this call opened before.
 */
/**
 * Shards of the wallet's hot credit-mostly accounts (docs/performance.md "Hot accounts"): a shard
 * takes about 500 credits a second in AWS, so a merchant's settlement (16) takes 8,000, the
 * tenant's revenue (32), credited by every fee and commission of the tenant, 16,000, and payout
 * clearing (8) 4,000. Debit-mostly accounts (funding, rewards pools paying out) are not spread:
 * their debits land on the account's own item whatever its shards.
 */
export const HOT_ACCOUNT_SHARDS = { settlement: 16, revenue: 32, payout_clearing: 8 } as const;

export async function openAccountOnce(
  ledger: TenancyLedger,
  ledgerId: string,
  /** The ledger's account request, with its floor always said (never the ledger's default). */
  input: AccountRequest & { floor: number | null },
  idempotencyKey: string,
): Promise<string> {
  try {
    return (await ledger.openAccount(ledgerId, input, idempotencyKey)).id;
  } catch (error) {
    const existing = error instanceof LedgerRefusal && error.code === 'conflict' ? UUID_AT_END.exec(error.detail)?.[1] : undefined;
    if (existing) return existing;
    throw error;
  }
}

/**
 * Account ids this container has already found. An account's id never changes once opened, so a
 * hot path (a capture earning rewards, a payout) asks the ledger for each lazily opened account
 * once per container, not per request; losing the memory costs only the ledger's idempotent replay.
 */
const known = new Map<string, Promise<string>>();
const KNOWN_MAX = 10_000;

/**
 * An account opened on first use (reward pools, a user's points, the tenant's payout clearing)
 * under a key derived from its owner, purpose and commodity, so every caller finds the same one.
 */
export function lazyAccount(
  runtime: Pick<WalletDeps, 'ledger'>,
  ledgerId: string,
  tenantId: string,
  account: { owner_type: 'merchant' | 'tenant' | 'user'; owner_id: string; purpose: string; commodity: string; floor: number | null; shards?: number },
): Promise<string> {
  const key = ledgerKeyOf(tenantId, account.owner_id, `account-${account.purpose}-${account.commodity}`);
  const cached = known.get(`${ledgerId}:${key}`);
  if (cached) return cached;
  const opened = openAccountOnce(runtime.ledger(), ledgerId, account, key);
  if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
  known.set(`${ledgerId}:${key}`, opened);
  // A failed opening is not remembered: the next caller asks the ledger again.
  opened.catch(() => known.delete(`${ledgerId}:${key}`));
  return opened;
}
