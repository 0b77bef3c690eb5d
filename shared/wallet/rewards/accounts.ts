import type { WalletDeps } from '../deps';
import { ledgerKeyOf } from '../saga';
import { openAccountOnce } from '../tenancy/ledger-accounts';

/**
 * The reward accounts in the tenant's ledger (docs/rewards.md), each opened once under a key
 * derived from its owner and purpose, so every caller finds the same account:
 *  - merchant `marketing` (currency, floor 0): the merchant's marketing funds, paying cashback;
 *  - tenant `points_issuance` (points, no floor): where points come from;
 *  - tenant `rewards_funding` (currency, no floor): the cash points convert to, the tenant's liability;
 *  - user `points` (points, floor 0): a user's points.
 */

type Purpose = 'marketing' | 'points_issuance' | 'rewards_funding' | 'points';

/**
 * Account ids this container has already found. An account's id never changes once opened, so a
 * capture that earns rewards asks the ledger for each account once per container, not per
 * payment; losing the cache costs only the ledger's idempotent replay.
 */
const known = new Map<string, Promise<string>>();
const KNOWN_MAX = 10_000;

export function rewardAccount(
  runtime: WalletDeps,
  ledgerId: string,
  tenantId: string,
  owner: { type: 'merchant' | 'tenant' | 'user'; id: string },
  purpose: Purpose,
  commodity: string,
): Promise<string> {
  const floor = purpose === 'marketing' || purpose === 'points' ? 0 : null;
  const key = ledgerKeyOf(tenantId, owner.id, `account-${purpose}-${commodity}`);
  const cached = known.get(`${ledgerId}:${key}`);
  if (cached) return cached;
  const opened = openAccountOnce(runtime.ledger(), ledgerId, { owner_type: owner.type, owner_id: owner.id, purpose, commodity, floor }, key);
  if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
  known.set(`${ledgerId}:${key}`, opened);
  // A failed opening is not remembered: the next caller asks the ledger again.
  opened.catch(() => known.delete(`${ledgerId}:${key}`));
  return opened;
}
