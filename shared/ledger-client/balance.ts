import type { LegRequest } from './contract';

/**
 * A posting the wallet built that the ledger would refuse as unbalanced: the wallet's own bug,
 * never its caller's. Not an AppError, so no 4xx: a request answers 500 `internal_error` with
 * nothing of it shown, a saga leaves its key started (shared/wallet/saga/refusals.ts), and the log
 * keeps the detail.
 */
export class PostingInvariantError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'PostingInvariantError';
  }
}

/**
 * The ledger's balance rule, checked before a posting or reservation is sent: every leg's amount
 * a positive integer in minor units (the lower bound of the ledger's `legAmount`), and for each
 * commodity the credits equal the debits (the ledger's `assertBalanced`, shared/ledger/refusals.ts,
 * summed the same way). The upper bound (MAX_LEG_AMOUNT) and the count of legs stay the ledger's
 * to refuse, as `invalid`. No legs (posting a pending): nothing to check, the reservation was.
 */
export function assertBalanced(type: string, legs: readonly LegRequest[] | undefined): void {
  if (legs === undefined) return;
  const net = new Map<string, number>();
  for (const [index, leg] of legs.entries()) {
    if (!Number.isInteger(leg.amount) || leg.amount < 1) {
      throw new PostingInvariantError(`The wallet built a ${type} posting whose leg ${index} moves ${String(leg.amount)}, not a positive integer of minor units.`);
    }
    net.set(leg.commodity, (net.get(leg.commodity) ?? 0) + (leg.direction === 'credit' ? leg.amount : -leg.amount));
  }
  const off = [...net].filter(([, total]) => total !== 0);
  if (off.length > 0) {
    throw new PostingInvariantError(`The wallet built an unbalanced ${type} posting: ${off.map(([commodity, total]) => `${commodity} credits ${total > 0 ? 'exceed' : 'fall short of'} debits by ${Math.abs(total)}`).join(', ')}.`);
  }
}
