import type { TransactItem } from '../../aws/dynamodb';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { outboxItem } from '../../events/outbox';
import { LedgerRefusal } from '../../ledger-client/client';
import type { LegRequest, Transaction } from '../../ledger-client/contract';
import { auditItem } from '../tenancy/audit';
import type { Actor } from '../deps';
import { computeFee } from '../tenancy/fees';
import { isConditionalCheckFailed, updateItem } from '../../aws/store';
import { getTenantRecord } from '../tenancy/tenants';
import { getUserRecord } from '../tenancy/users';
import { outsidePrincipal } from '../principals';
import { defineOperation, ledgerKeyOf, type OperationContext, type OperationPlan } from '../saga/registry';
import { runOperation, type SagaFaults } from '../saga/engine';
import type { Outcome } from '../../http/outcome';
import type { WalletDeps } from '../deps';
import { topupProcessors } from './gateways';
import { processorEventKey, topupKeys } from './keys';
import type { ProcessorEvent, ProcessorRefund } from './processors';
import { findTopupRecord, getTopupRecord, publicTopup, transitionItem, type TopupRecord } from './records';
import { assertTransition, type ResolveAction, type TopupStatus } from './states';

/** Steps 2 and 3 of a top-up (./create.ts tells the whole story): the processor's confirmation and an operator's resolution. */

type Runtime = WalletDeps;

interface SettleRequest {
  gateway: string;
  event: ProcessorEvent;
}

const TOPUP_SETTLE = defineOperation('topup.settle', async (ctx): Promise<OperationPlan> => {
  const { event } = ctx.request as SettleRequest;
  const topup = await getTopupRecord(ctx.runtime, ctx.tenantId, event.topup_id);
  const ack = (status: TopupStatus, ignored: boolean) => ({ status: 200, body: { received: true, event_id: event.id, topup_id: topup.id, status, ignored } });
  if (topup.status !== 'pending') {
    // Settled by an earlier event or resolved since: acknowledge without a change, so the
    // processor stops retrying (a refusal would be retried for days).
    return { post: async () => null, commit: async () => ({ items: [], ...ack(topup.status, true) }) };
  }
  const confirmed = { confirmed_amount: event.amount, confirmed_currency: event.currency, processor_event_id: event.id };
  if (event.outcome === 'failed') {
    return changePlan(ctx, topup, { to: 'failed', fields: { ...confirmed, failure_reason: 'declined' }, eventType: 'topup.failed', answer: (after) => ack(after.status, false) });
  }
  if (event.amount !== topup.amount || event.currency !== topup.currency) {
    return changePlan(ctx, topup, { to: 'amount_mismatch', fields: confirmed, eventType: 'topup.amount_mismatch', answer: (after) => ack(after.status, false) });
  }
  return changePlan(ctx, topup, {
    to: 'succeeded',
    credit: { gross: topup.amount, fee: topup.fee },
    fields: confirmed,
    eventType: 'topup.succeeded',
    answer: (after) => ack(after.status, false),
  });
});

/**
 * A processor's webhook: verifies its signature over the raw body, then settles the top-up once per
 * processor event (a duplicate delivery replays the first answer and changes nothing). An event for
 * a top-up that has already left `pending` is acknowledged and ignored.
 * Refuses: not_found (unknown gateway; a top-up this gateway does not know, e.g. not yet committed:
 * the processor retries), unauthenticated (signature), invalid_request (a signed body that is not
 * an event), conflict (the event names another intent than the top-up's), idempotency_key_reuse
 * (an event id seen with another body), service_unavailable (another change of the top-up is in
 * progress: retry), and ledger refusals of the credit (account_frozen, account_closed).
 */
export async function receiveProcessorWebhook(
  runtime: Runtime,
  input: { gateway: string; rawBody: string; headers: Readonly<Record<string, string>>; requestId: string },
  options: { faults?: SagaFaults } = {},
): Promise<Outcome> {
  const processor = topupProcessors().get(input.gateway);
  if (!processor) throw new AppError('not_found', `No top-up gateway ${input.gateway}.`);
  const event = processor.parseWebhook(input.rawBody, input.headers, runtime.clock.now());
  if ('ignored' in event) return ignoredEvent(event.id);
  const topup = await findTopupRecord(runtime, event.topup_id);
  if (!topup || topup.gateway !== processor.name) throw new AppError('not_found', `Gateway ${processor.name} has no top-up ${event.topup_id}.`);
  if (topup.processor_ref !== event.processor_ref) {
    throw new AppError('conflict', `Event ${event.id} names intent ${event.processor_ref}; top-up ${topup.id} has ${topup.processor_ref}.`);
  }
  return runOperation(
    runtime,
    {
      operation: TOPUP_SETTLE,
      tenantId: topup.tenant_id,
      idempotencyKey: processorEventKey(processor.name, event.id),
      request: { gateway: processor.name, event } satisfies SettleRequest,
      principal: outsidePrincipal(`processor:${processor.name}`, topup.tenant_id),
      requestId: input.requestId,
    },
    options.faults,
  );
}

/** A verified event of a type the wallet does not act on: acknowledged, nothing stored. */
const ignoredEvent = (eventId: string): Outcome => ({
  status: 200,
  body: JSON.stringify({ received: true, event_id: eventId, topup_id: null, status: null, ignored: true }),
  replayed: false,
});

// Step 3 ------------------------------------------------------------------------------------------

interface ResolveRequest {
  topup_id: string;
  action: ResolveAction;
}

const TOPUP_RESOLVE = defineOperation('topup.resolve', async (ctx): Promise<OperationPlan> => {
  const { topup_id: topupId, action } = ctx.request as ResolveRequest;
  const topup = await getTopupRecord(ctx.runtime, ctx.tenantId, topupId);
  const audit: Actor = { kind: ctx.principal.kind, id: ctx.principal.id };
  const answer = (after: TopupRecord) => ({ status: 200, body: publicTopup(after) });
  // Only a mismatch awaits an operator; a pending top-up awaits its processor.
  if (topup.status !== 'amount_mismatch') throw new AppError('invalid_transition', `A top-up in status ${topup.status} has no mismatch to resolve.`);
  if (action === 'refund') {
    return changePlan(ctx, topup, {
      to: 'refunded',
      refundAtProcessor: true,
      fields: { resolution: 'refund', failure_reason: 'refunded_after_mismatch' },
      eventType: 'topup.failed',
      eventData: { reason: 'refunded_after_mismatch' },
      audit,
      answer,
    });
  }
  const gross = topup.confirmed_amount;
  if (gross === null || topup.confirmed_currency !== topup.currency) {
    throw new AppError('invalid_request', `The processor confirmed ${topup.confirmed_currency ?? 'nothing'}, not ${topup.currency}: refund the top-up instead.`);
  }
  const fee = computeFee(topup.fee_rule, gross);
  if (fee >= gross) throw new AppError('invalid_request', `The confirmed amount ${gross} does not cover the top-up fee ${fee}: refund the top-up instead.`);
  return changePlan(ctx, topup, {
    to: 'succeeded',
    credit: { gross, fee },
    fields: { resolution: 'credit_confirmed', fee, net_amount: gross - fee },
    eventType: 'topup.succeeded',
    audit,
    answer,
  });
});

/**
 * An operator resolves an amount mismatch: `credit_confirmed` credits what the processor confirmed
 * (fee on that amount, by the top-up's fee rule) and the top-up succeeds; `refund` asks the
 * processor to give the payer back what it confirmed (its refund id is kept on the top-up), then
 * marks it refunded (docs/topups.md). Audited, once per Idempotency-Key.
 * Refuses: not_found, invalid_transition (not in amount_mismatch), invalid_request (confirmed in
 * another currency, or not above the fee: refund instead), idempotency_key_reuse,
 * service_unavailable (another change of the top-up is in progress: retry), and ledger refusals of
 * the credit (account_frozen, account_closed).
 */
export async function resolveTopup(
  runtime: Runtime,
  tenantId: string,
  principal: Principal,
  input: { topupId: string; action: ResolveAction },
  options: { idempotencyKey: string; requestId: string; faults?: SagaFaults },
): Promise<Outcome> {
  // Another tenant's or an unknown top-up answers 404 without taking the key.
  await getTopupRecord(runtime, tenantId, input.topupId);
  return runOperation(
    runtime,
    {
      operation: TOPUP_RESOLVE,
      tenantId,
      idempotencyKey: options.idempotencyKey,
      request: { topup_id: input.topupId, action: input.action } satisfies ResolveRequest,
      principal,
      requestId: options.requestId,
    },
    options.faults,
  );
}

// Transitions -------------------------------------------------------------------------------------

interface Change {
  to: TopupStatus;
  /** Give the payer back, at the processor, what it confirmed it took. */
  refundAtProcessor?: true;
  /** Credit the user: `gross` leaves the funding account, `fee` of it goes to revenue, the rest to the user. */
  credit?: { gross: number; fee: number };
  fields: Partial<TopupRecord>;
  eventType: 'topup.succeeded' | 'topup.failed' | 'topup.amount_mismatch';
  eventData?: Record<string, unknown>;
  /** Operator changes are audited in the same transaction. */
  audit?: Actor;
  answer(after: TopupRecord): { status: number; body: unknown };
}

/**
 * The saga steps of one transition: claim the top-up (so no other change can commit past this one),
 * post the credit if any, then commit the new status with its event (and audit record).
 */
function changePlan(ctx: OperationContext, topup: TopupRecord, change: Change): OperationPlan {
  assertTransition(topup.status, change.to);
  return {
    async post(ledgerKey) {
      await claimTopup(ctx.runtime, topup, ctx.operationId);
      if (change.refundAtProcessor) return refundAtProcessor(topup, ledgerKey);
      if (!change.credit) return null;
      try {
        return await postCredit(ctx.runtime, topup, change.credit);
      } catch (error) {
        // A refusal ends this saga (its answer is remembered): let another change proceed.
        if (error instanceof LedgerRefusal) await releaseClaim(ctx.runtime, topup.id, ctx.operationId);
        throw error;
      }
    },
    async commit(posted) {
      const transaction = change.credit ? (posted as Transaction | null) : null;
      const refund = change.refundAtProcessor ? (posted as ProcessorRefund) : null;
      const after: TopupRecord = {
        ...topup,
        ...change.fields,
        status: change.to,
        ledger_transaction_id: transaction?.id ?? topup.ledger_transaction_id,
        processor_refund_ref: refund?.refund_ref ?? topup.processor_refund_ref,
        claim: null,
        updated_at: ctx.runtime.clock.now().toISOString(),
      };
      const items: TransactItem[] = [
        transitionItem(ctx.runtime.table, topup, after, ctx.operationId),
        outboxItem(ctx.runtime, { type: change.eventType, tenantId: topup.tenant_id, data: { topup: publicTopup(after), ...change.eventData } }).item,
      ];
      if (change.audit) {
        items.push(
          auditItem(ctx.runtime, {
            tenantId: topup.tenant_id,
            actor: change.audit,
            action: 'topup.resolve',
            target: { type: 'topup', id: topup.id },
            before: publicTopup(topup),
            after: publicTopup(after),
            requestId: ctx.requestId,
          }),
        );
      }
      return { items, ...change.answer(after) };
    },
  };
}

/**
 * Asks the top-up's processor to give back what it confirmed it took, under a key derived from
 * the saga (the same for every retry and for the sweeper), so a repeat is the same refund.
 */
async function refundAtProcessor(topup: TopupRecord, idempotencyKey: string): Promise<ProcessorRefund> {
  const processor = topupProcessors().get(topup.gateway);
  if (!processor) throw new AppError('service_unavailable', `The ${topup.gateway} gateway is not configured here; the refund cannot be sent.`);
  return processor.refund({
    topup_id: topup.id,
    processor_ref: topup.processor_ref,
    amount: topup.confirmed_amount ?? topup.amount,
    currency: topup.confirmed_currency ?? topup.currency,
    idempotency_key: idempotencyKey,
  });
}

const busy = () => new AppError('service_unavailable', 'Another change to this top-up is in progress; retry.');

/** Takes the top-up for this saga, from the status it was read in; re-entrant for a resumed saga. */
async function claimTopup(runtime: Runtime, topup: TopupRecord, operationId: string): Promise<void> {
  try {
    await updateItem(runtime, topupKeys.topup(topup.id), {
      expression: 'SET claim = :operation',
      condition: '#status = :from AND (attribute_not_exists(claim) OR claim = :operation)',
      names: { '#status': 'status' },
      values: { ':from': topup.status, ':operation': operationId },
    });
  } catch (error) {
    // Not remembered under the key (a 5xx): the retry re-reads the top-up and decides again.
    if (isConditionalCheckFailed(error)) throw busy();
    throw error;
  }
}

async function releaseClaim(runtime: Runtime, topupId: string, operationId: string): Promise<void> {
  try {
    await updateItem(runtime, topupKeys.topup(topupId), {
      expression: 'REMOVE claim',
      condition: 'claim = :operation',
      values: { ':operation': operationId },
    });
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}

/**
 * The credit posting: `gross` from the tenant's funding account, `gross - fee` to the user's cash
 * account and `fee` to the tenant's revenue account, one balanced transaction. Its ledger key
 * derives from the top-up id alone: every path and every retry that credits this top-up replays
 * the same posting.
 */
async function postCredit(runtime: Runtime, topup: TopupRecord, credit: { gross: number; fee: number }): Promise<Transaction> {
  const net = credit.gross - credit.fee;
  // Preconditions where money moves: whole amounts, nothing negative, something for the user.
  if (!Number.isSafeInteger(credit.gross) || !Number.isSafeInteger(credit.fee) || credit.fee < 0 || net < 1) {
    throw new Error(`top-up ${topup.id}: a credit of ${credit.gross} with fee ${credit.fee} cannot be posted`);
  }
  const tenant = await getTenantRecord(runtime, topup.tenant_id);
  const user = await getUserRecord(runtime, topup.tenant_id, topup.user_id);
  const commodity = topup.currency;
  const legs: LegRequest[] = [
    { account_id: tenant.accounts.funding, direction: 'debit', amount: credit.gross, commodity },
    { account_id: user.cash_account_id, direction: 'credit', amount: net, commodity },
    ...(credit.fee > 0 ? [{ account_id: tenant.accounts.revenue, direction: 'credit' as const, amount: credit.fee, commodity }] : []),
  ];
  const transaction = await runtime
    .ledger()
    .post(
      tenant.ledger_id,
      { type: 'topup', legs, reference_id: topup.id, metadata: { topup_id: topup.id, user_id: topup.user_id, gateway: topup.gateway, processor_ref: topup.processor_ref } },
      ledgerKeyOf(topup.tenant_id, topup.id, 'credit'),
    );
  // Postcondition: the ledger answered the posting of this top-up (a replay answers the original).
  if (transaction.reference_id !== topup.id) throw new Error(`top-up ${topup.id}: the ledger answered transaction ${transaction.id} of ${transaction.reference_id}`);
  return transaction;
}

// Reads -------------------------------------------------------------------------------------------

/** The tenant's top-up; a user token reads only its own user's. Refuses: not_found. */
