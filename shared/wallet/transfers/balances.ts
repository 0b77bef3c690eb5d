import { AppError } from '../../kernel/errors';
import type { Account } from '../../ledger-client/contract';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import type { TransfersDeps } from './deps';

/** A user's balances, read from the ledger account that holds its money (its cash account). */

export interface Balances {
  user_id: string;
  currency: string;
  /** What the user may spend now: posted minus pending debits (may be negative on a credit line). */
  available: number;
  /** Reserved by pending debits (payment holds), not yet posted. */
  pending: number;
  /** Credits minus debits of posted transactions. */
  posted: number;
  /** How far below zero the account may go (minus its floor); 0 without a credit line. */
  credit_limit: number;
}

/** A floor of -500 is a credit line of 500; a floor of 0 (or none, which no user account has) is none. */
export const creditLimitOf = (floor: number | null): number => (floor === null || floor >= 0 ? 0 : -floor);

/**
 * The user's balances; `selfOnly` (a user token's user) confines the read to that user.
 * Refuses: user_not_found (unknown, another tenant's, or another user for a user token).
 */
export async function getBalances(deps: TransfersDeps, tenantId: string, userId: string, options: { selfOnly?: string } = {}): Promise<Balances> {
  if (options.selfOnly !== undefined && options.selfOnly !== userId) throw new AppError('user_not_found', `No user ${userId}.`);
  const [tenant, user] = await Promise.all([getTenantRecord(deps, tenantId), getUserRecord(deps, tenantId, userId)]);
  return balancesOf(userId, await deps.ledger().getAccount(tenant.ledger_id, user.cash_account_id));
}

export function balancesOf(userId: string, account: Account): Balances {
  return {
    user_id: userId,
    currency: account.commodity,
    available: account.balance.available,
    pending: account.balance.pending_debits,
    posted: account.balance.posted,
    credit_limit: creditLimitOf(account.floor),
  };
}
