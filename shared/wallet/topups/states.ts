import { AppError } from '../../kernel/errors';

/**
 * The top-up state machine (docs/topups.md "States"). The record is first written once the
 * processor's intent exists, so `pending` is the first stored state (the spec's created/pending).
 * Every write that changes the status is conditioned on the status it leaves (service.ts), so the
 * table enforces this as well as the code.
 */

export const TOPUP_STATUSES = ['pending', 'succeeded', 'failed', 'amount_mismatch', 'refunded'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];

/** How a top-up held in amount_mismatch is resolved (POST /v1/topups/{topupId}/resolve). */
export const RESOLVE_ACTIONS = ['credit_confirmed', 'refund'] as const;
export type ResolveAction = (typeof RESOLVE_ACTIONS)[number];

const NEXT: Readonly<Record<TopupStatus, readonly TopupStatus[]>> = {
  pending: ['succeeded', 'failed', 'amount_mismatch'],
  amount_mismatch: ['succeeded', 'refunded'],
  succeeded: [],
  failed: [],
  refunded: [],
};

export const canTransition = (from: TopupStatus, to: TopupStatus): boolean => NEXT[from].includes(to);

export const isTerminal = (status: TopupStatus): boolean => NEXT[status].length === 0;

/** Refuses: invalid_transition. */
export function assertTransition(from: TopupStatus, to: TopupStatus): void {
  if (!canTransition(from, to)) throw new AppError('invalid_transition', `A top-up in status ${from} cannot become ${to}.`);
}
