import { outboxItem } from '../../events/outbox';
import type { Outcome } from '../../http/outcome';
import { AppError } from '../../kernel/errors';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Transaction } from '../../ledger-client/contract';
import type { WalletDeps } from '../deps';
import { outsidePrincipal } from '../principals';
import { defineOperation, ledgerKeyOf, type OperationPlan } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import { railEventKey } from './keys';
import type { RailEvent } from './rails';
import { findPayoutRecord, getPayoutRecord, paidLegs, publicPayout, settleItem, type PayoutRecord } from './records';
import { payoutRails } from './registry';

/**
 * Step 2 of a payout (./create.ts tells the whole story): the rail's signed confirmation ends the
 * pending payout once. Paid posts the ledger hold (settlement -> payout clearing, fee -> revenue);
 * failed voids it. The ledger resolves a pending exactly once, so a paid and a failed confirmation
 * racing cannot both move money, and the payout's commit is conditioned on `pending`.
 */

interface SettleRequest {
  rail: string;
  event: RailEvent;
}

const PAYOUT_SETTLE = defineOperation('payout.settle', async (ctx): Promise<OperationPlan> => {
  const { event } = ctx.request as SettleRequest;
  const payout = await getPayoutRecord(ctx.runtime, ctx.tenantId, event.payout_id);
  const ack = (after: PayoutRecord, ignored: boolean) => ({ status: 200, body: { received: true, event_id: event.id, payout_id: after.id, status: after.status, ignored } });
  if (payout.status !== 'pending') {
    // Ended by an earlier event: acknowledge without a change, so the rail stops retrying.
    return { post: async () => null, commit: async () => ({ items: [], ...ack(payout, true) }) };
  }
  const ledger = ctx.runtime.ledger();
  const paid = event.outcome === 'paid';
  return {
    post: async () => {
      try {
        if (paid) {
          return await ledger.post(
            payout.ledger_id,
            { type: 'payout', reference_id: payout.id, metadata: { payout_id: payout.id, merchant_id: payout.merchant_id, rail_ref: payout.rail_ref }, post_pending_id: payout.pending_id, legs: paidLegs(payout) },
            ledgerKeyOf(payout.tenant_id, payout.id, 'paid'),
          );
        }
        await ledger.voidPending(payout.ledger_id, payout.pending_id, ledgerKeyOf(payout.tenant_id, payout.id, 'failed'));
        return null;
      } catch (error) {
        // The other outcome resolved the hold first: this confirmation contradicts the one that won.
        if (error instanceof LedgerRefusal && error.code === 'conflict') throw new AppError('conflict', `Payout ${payout.id} was already settled by another confirmation.`);
        throw error;
      }
    },
    commit: async (posted) => {
      const now = ctx.runtime.clock.now().toISOString();
      const after: PayoutRecord = paid
        ? { ...payout, status: 'paid', ledger_transaction_id: (posted as Transaction).id, rail_event_id: event.id, updated_at: now }
        : { ...payout, status: 'failed', failure_reason: event.failure_reason ?? 'failed', rail_event_id: event.id, updated_at: now };
      const published = outboxItem(ctx.runtime, { type: paid ? 'payout.paid' : 'payout.failed', tenantId: payout.tenant_id, data: { payout: publicPayout(after) } });
      return { items: [settleItem(ctx.runtime.table, after), published.item], ...ack(after, false) };
    },
  };
});

/**
 * A payout rail's webhook: verifies its signature over the raw body, then ends the payout once per
 * rail event (a duplicate delivery replays the first answer and changes nothing; another event for
 * a payout that has already ended is acknowledged and ignored).
 * Refuses: not_found (unknown rail; a payout this rail does not know, e.g. not yet committed: the
 * rail retries), unauthenticated (signature), invalid_request (a signed body that is not an event),
 * conflict (the event names another rail payout than ours; or it contradicts the confirmation that
 * already ended the payout), idempotency_key_reuse (an event id seen with another body).
 */
export async function receiveRailWebhook(
  runtime: WalletDeps,
  input: { rail: string; rawBody: string; headers: Readonly<Record<string, string>>; requestId: string },
  options: { faults?: SagaFaults } = {},
): Promise<Outcome> {
  const rail = payoutRails().get(input.rail);
  if (!rail) throw new AppError('not_found', `No payout rail ${input.rail}.`);
  const event = rail.parseWebhook(input.rawBody, input.headers, runtime.clock.now());
  if ('ignored' in event) {
    return { status: 200, body: JSON.stringify({ received: true, event_id: event.id, payout_id: null, status: null, ignored: true }), replayed: false };
  }
  const payout = await findPayoutRecord(runtime, event.payout_id);
  if (!payout || payout.rail !== rail.name) throw new AppError('not_found', `Rail ${rail.name} has no payout ${event.payout_id}.`);
  if (payout.rail_ref !== event.rail_ref) throw new AppError('conflict', `Event ${event.id} names rail payout ${event.rail_ref}; payout ${payout.id} is ${payout.rail_ref}.`);
  return runOperation(
    runtime,
    {
      operation: PAYOUT_SETTLE,
      tenantId: payout.tenant_id,
      idempotencyKey: railEventKey(rail.name, event.id),
      request: { rail: rail.name, event } satisfies SettleRequest,
      principal: outsidePrincipal(`rail:${rail.name}`, payout.tenant_id),
      requestId: input.requestId,
    },
    options.faults,
  );
}
