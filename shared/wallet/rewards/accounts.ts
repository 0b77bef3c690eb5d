import type { WalletDeps } from '../deps';
import { lazyAccount } from '../tenancy/ledger-accounts';

/**
 * The reward accounts in the tenant's ledger (docs/rewards.md), each opened once under a key
 * derived from its owner and purpose, so every caller finds the same account:
 *  - merchant `marketing` (currency, floor 0): the merchant's marketing funds, paying cashback;
 *  - tenant `points_issuance` (points, no floor): where points come from;
 *  - tenant `rewards_funding` (currency, no floor): the cash points convert to, the tenant's liability;
 *  - user `points` (points, floor 0): a user's points.
 */

type Purpose = 'marketing' | 'points_issuance' | 'rewards_funding' | 'points';

export function rewardAccount(
  runtime: WalletDeps,
  ledgerId: string,
  tenantId: string,
  owner: { type: 'merchant' | 'tenant' | 'user'; id: string },
  purpose: Purpose,
  commodity: string,
): Promise<string> {
  const floor = purpose === 'marketing' || purpose === 'points' ? 0 : null;
  return lazyAccount(runtime, ledgerId, tenantId, { owner_type: owner.type, owner_id: owner.id, purpose, commodity, floor });
}
