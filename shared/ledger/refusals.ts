import { AppError, type ErrorCode } from '../kernel/errors';
import type { ConditionsFailed } from '../aws/store';
import type { Role } from './posting-plan';
import type { Item } from './records';
import type { LegInput, Pending } from './schemas';
import type { AccountFacts } from './records';

/**
 * What the ledger refuses, and how a failed write says why. A posting is one TransactWriteItems;
 * each of its items has a role, and a cancelled transaction's failed conditions are mapped back to
 * the ledger's codes through those roles, the most specific failure first.
 */


export type Diagnose = (failure: { role: Role; item?: Item }) => AppError | undefined;

/** Refusals that depend on state and are therefore remembered under the Idempotency-Key. */
export const REMEMBERED_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  'insufficient_funds',
  'account_frozen',
  'account_closed',
  'precondition_failed',
  'limit_exceeded',
  'period_closed',
  'post_exceeds_pending',
  'conflict',
]);

/** The refusal a cancelled posting stands for: a concurrent twin first, then the item's own role. */
export function diagnose(error: ConditionsFailed, roles: readonly Role[], custom?: Diagnose): Error {
  const failures = error.failures.map((f) => ({ role: roles[f.index]!, item: f.item }));
  const twin = failures.find((f) => f.role.kind === 'idempotency');
  if (twin) return new AppError('idempotency_in_flight', 'A request with this Idempotency-Key completed concurrently.');
  for (const failure of failures) {
    const mapped = custom?.(failure);
    if (mapped) return mapped;
    const { role, item } = failure;
    switch (role.kind) {
      case 'ledger':
        return new AppError('period_closed', 'The effective date falls in a closed period.');
      case 'claim':
        return new AppError('limit_exceeded', `The limit claim ${role.key} would pass its max.`);
      case 'pending':
        return new AppError('conflict', 'The pending posting is no longer open.');
      case 'account':
        return accountRefusal(role, item);
      default:
        break;
    }
  }
  return error;
}

function accountRefusal(role: Extract<Role, { kind: 'account' }>, item: Item | undefined): AppError {
  if (!item) return new AppError('account_not_found', `No account ${role.accountId} in this ledger.`);
  if (item.status === 'frozen') return new AppError('account_frozen', `Account ${role.accountId} is frozen.`);
  if (item.status === 'closed') return new AppError('account_closed', `Account ${role.accountId} is closed.`);
  if (role.version !== undefined && Number(item.version) !== role.version) {
    return new AppError('precondition_failed', `Account ${role.accountId} is at version ${String(item.version)}, not ${role.version}.`);
  }
  const availableDelta = role.delta.posted - role.delta.pendingDebits;
  if (role.minAvailable !== undefined && Number(item.available) + availableDelta < role.minAvailable) {
    return new AppError('precondition_failed', `Account ${role.accountId} would keep less than ${role.minAvailable} available.`);
  }
  return new AppError('insufficient_funds', `Account ${role.accountId} would go below its floor.`);
}

/** Each commodity's debits equal its credits. Returns the commodities. Refuses: unbalanced. */
export function assertBalanced(legs: readonly LegInput[]): Set<string> {
  const net = new Map<string, number>();
  for (const leg of legs) net.set(leg.commodity, (net.get(leg.commodity) ?? 0) + (leg.direction === 'credit' ? leg.amount : -leg.amount));
  const off = [...net].filter(([, total]) => total !== 0);
  if (off.length > 0) {
    throw new AppError('unbalanced', `Debits and credits differ: ${off.map(([c, t]) => `${c} by ${Math.abs(t)}`).join(', ')}.`);
  }
  return new Set(net.keys());
}

/** Every leg names its account's own commodity. Refuses: invalid. */
export function assertCommodities(legs: readonly LegInput[], facts: Map<string, AccountFacts>): void {
  for (const leg of legs) {
    const commodity = facts.get(leg.account_id)!.commodity;
    if (commodity !== leg.commodity) throw new AppError('invalid', `Account ${leg.account_id} holds ${commodity}, not ${leg.commodity}.`);
  }
}

/** The posting's debits per account fit in what the pending reserved there. Refuses: post_exceeds_pending. */
export function assertWithinPending(legs: readonly LegInput[], pending: Pending): void {
  const reserved = new Map<string, number>();
  for (const leg of pending.legs) if (leg.direction === 'debit') reserved.set(leg.account_id, (reserved.get(leg.account_id) ?? 0) + leg.amount);
  const debited = new Map<string, number>();
  for (const leg of legs) if (leg.direction === 'debit') debited.set(leg.account_id, (debited.get(leg.account_id) ?? 0) + leg.amount);
  for (const [accountId, amount] of debited) {
    if (amount > (reserved.get(accountId) ?? 0)) {
      throw new AppError('post_exceeds_pending', `Account ${accountId} is debited ${amount}, more than the ${reserved.get(accountId) ?? 0} reserved.`);
    }
  }
}
