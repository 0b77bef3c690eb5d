import { dueKeys, forEachDue } from '../aws/due-keys';
import { getItem } from '../aws/store';
import type { Outcome } from '../http/outcome';
import { AppError } from '../kernel/errors';
import { effectiveAt, idempotent, newTransaction, periodCheckOf, type LedgerContext } from './context';
import { accountsOf, ledgerOf, ledgerOfAnyConsumer, openPending } from './facts';
import type { IdempotencyContext } from './idempotency';
import { PENDING_INDEX_SHARDS, ledgerKeys } from './keys';
import { addDelta, postingPlan, type AccountDelta } from './posting-plan';
import { legOut, pendingAttributes, pendingJson, toTransaction, transactionJson } from './records';
import { assertBalanced, assertCommodities, assertWithinPending } from './refusals';
import { spreadOf } from './shards';
import type { LegInput, Pending, PendingCreate, PostingCreate, Transaction } from './schemas';

/** Money: postings, pending reservations, their resolution, reversals (refusals documented on LedgerService). */

const releaseOf = (leg: { direction: 'debit' | 'credit'; amount: number }): AccountDelta =>
  leg.direction === 'debit' ? { posted: 0, pendingDebits: -leg.amount, pendingCredits: 0 } : { posted: 0, pendingDebits: 0, pendingCredits: -leg.amount };

export async function post(context: LedgerContext, consumerId: string, ledgerId: string, input: PostingCreate, idem: IdempotencyContext): Promise<Outcome> {
  const ledger = await ledgerOf(context, consumerId, ledgerId);
  return idempotent(context, idem, async (now) => {
    const effective = effectiveAt(input.effective_at, now);
    const pending = input.post_pending_id ? await openPending(context, ledgerId, input.post_pending_id, now) : undefined;
    const legs = input.legs ?? pending!.legs.map(({ account_id, direction, amount, commodity }) => ({ account_id, direction, amount, commodity }));
    const commodities = assertBalanced(legs);
    const facts = await accountsOf(context, ledgerId, legs.map((l) => l.account_id));
    assertCommodities(legs, facts);

    const deltas = new Map<string, AccountDelta>();
    for (const leg of legs) addDelta(deltas, leg.account_id, { posted: leg.direction === 'credit' ? leg.amount : -leg.amount, pendingDebits: 0, pendingCredits: 0 });
    if (pending) {
      assertWithinPending(legs, pending);
      // Posting a pending releases its whole reservation; what is not posted is given back.
      for (const leg of pending.legs) addDelta(deltas, leg.account_id, releaseOf(leg));
    }

    const transaction = newTransaction(context, ledgerId, input, legs, facts, effective, now, { exchange: commodities.size > 1, pendingId: pending?.id ?? null });
    const pinned = [...(input.version_is ?? []), ...(input.min_available_after ?? [])].map((p) => p.account_id);
    // Posting a pending credits the shard its hold was on, so the hold's release nets out there.
    const spread = spreadOf(deltas, facts, pending?.id ?? transaction.id, pinned);
    const plan = postingPlan(context.deps.table, ledger, periodCheckOf(input.effective_at, effective), now);
    plan.addTransaction(transaction, spread);
    plan.addAccounts(ledgerId, deltas, { requireActive: true, versionIs: input.version_is, minAvailableAfter: input.min_available_after }, spread);
    plan.addClaims(ledgerId, input.limit_claims ?? [], now);
    if (pending) plan.resolvePending(pending.id, 'posted', now, transaction.id);
    return { ...plan.build(), status: 201, body: transactionJson(transaction), ref: `transaction ${transaction.id} ${ledgerId}` };
  });
}

export async function reserve(context: LedgerContext, consumerId: string, ledgerId: string, input: PendingCreate, idem: IdempotencyContext): Promise<Outcome> {
  const ledger = await ledgerOf(context, consumerId, ledgerId);
  return idempotent(context, idem, async (now) => {
    assertBalanced(input.legs);
    if (input.expires_at && new Date(input.expires_at).getTime() <= now.getTime()) throw new AppError('invalid', 'expires_at must be in the future.');
    const facts = await accountsOf(context, ledgerId, input.legs.map((l) => l.account_id));
    assertCommodities(input.legs, facts);
    const deltas = new Map<string, AccountDelta>();
    for (const leg of input.legs) {
      addDelta(deltas, leg.account_id, leg.direction === 'debit' ? { posted: 0, pendingDebits: leg.amount, pendingCredits: 0 } : { posted: 0, pendingDebits: 0, pendingCredits: leg.amount });
    }
    const id = context.deps.ids();
    const expiresAt = input.expires_at ? new Date(input.expires_at).toISOString() : null;
    const pending: Pending = {
      id,
      ledger_id: ledgerId,
      type: input.type,
      status: 'pending',
      reference_id: input.reference_id ?? null,
      metadata: input.metadata ?? {},
      legs: input.legs.map((leg) => legOut(leg, facts)),
      expires_at: expiresAt,
      transaction_id: null,
      created_at: now.toISOString(),
      resolved_at: null,
    };
    const plan = postingPlan(context.deps.table, ledger, undefined, now);
    plan.items.push({
      Put: {
        TableName: context.deps.table,
        Item: { ...ledgerKeys.pending(id), ...pendingAttributes(pending), ...(expiresAt ? ledgerKeys.openPendingIndex(id, expiresAt) : {}) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    plan.roles.push({ kind: 'record' });
    const spread = spreadOf(deltas, facts, id, (input.min_available_after ?? []).map((p) => p.account_id));
    plan.addAccounts(ledgerId, deltas, { requireActive: true, minAvailableAfter: input.min_available_after }, spread);
    return { ...plan.build(), status: 201, body: pendingJson(pending), ref: `pending_created ${id}` };
  });
}

export async function voidPending(
  context: LedgerContext,
  consumerId: string,
  ledgerId: string,
  pendingId: string,
  idem: IdempotencyContext | undefined,
  outcome: 'voided' | 'expired' = 'voided',
): Promise<Outcome> {
  const ledger = await ledgerOf(context, consumerId, ledgerId);
  return idempotent(context, idem, async (now) => {
    const pending = await openPending(context, ledgerId, pendingId, now, { allowExpired: true });
    const deltas = new Map<string, AccountDelta>();
    for (const leg of pending.legs) addDelta(deltas, leg.account_id, releaseOf(leg));
    const facts = await accountsOf(context, ledgerId, [...deltas.keys()]);
    const plan = postingPlan(context.deps.table, ledger, undefined, now);
    plan.resolvePending(pendingId, outcome, now, null);
    // Releasing a reservation moves no money, so it is allowed on frozen and closed accounts too.
    plan.addAccounts(ledgerId, deltas, { requireActive: false }, spreadOf(deltas, facts, pendingId));
    const resolved: Pending = { ...pending, status: outcome, resolved_at: now.toISOString() };
    return { ...plan.build(), status: 200, body: pendingJson(resolved), ref: `pending ${pendingId}` };
  });
}

export async function reverse(
  context: LedgerContext,
  consumerId: string,
  ledgerId: string,
  transactionId: string,
  input: { effective_at?: string; metadata?: Record<string, string> } | undefined,
  idem: IdempotencyContext,
): Promise<Outcome> {
  const ledger = await ledgerOf(context, consumerId, ledgerId);
  return idempotent(context, idem, async (now) => {
    const original = await transactionOf(context, ledgerId, transactionId);
    if (original.reversed_by) throw new AppError('conflict', `Transaction ${transactionId} was already reversed by ${original.reversed_by}.`);
    if (original.reverses_txn_id) throw new AppError('invalid', 'A reversal cannot itself be reversed; post a new transaction instead.');
    if (original.exchange_id) throw new AppError('invalid', 'A transaction in an exchange group cannot be reversed on its own.');
    const effective = effectiveAt(input?.effective_at, now);
    const legs: LegInput[] = original.legs.map((leg) => ({ account_id: leg.account_id, direction: leg.direction === 'debit' ? 'credit' : 'debit', amount: leg.amount, commodity: leg.commodity }));
    const facts = await accountsOf(context, ledgerId, legs.map((l) => l.account_id));
    const deltas = new Map<string, AccountDelta>();
    for (const leg of legs) addDelta(deltas, leg.account_id, { posted: leg.direction === 'credit' ? leg.amount : -leg.amount, pendingDebits: 0, pendingCredits: 0 });
    const reversal = newTransaction(
      context,
      ledgerId,
      { type: original.type, metadata: input?.metadata ?? original.metadata, reference_id: original.reference_id ?? undefined },
      legs,
      facts,
      effective,
      now,
      { exchange: false, pendingId: null, reverses: transactionId },
    );
    const spread = spreadOf(deltas, facts, reversal.id);
    const plan = postingPlan(context.deps.table, ledger, periodCheckOf(input?.effective_at, effective), now);
    plan.addTransaction(reversal, spread);
    plan.items.push({
      Update: {
        TableName: context.deps.table,
        Key: ledgerKeys.transaction(ledger, transactionId),
        UpdateExpression: 'SET reversed_by = :by',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(reversed_by)',
        ExpressionAttributeValues: { ':by': reversal.id },
      },
    });
    plan.roles.push({ kind: 'original' });
    plan.addAccounts(ledgerId, deltas, { requireActive: true }, spread);
    return {
      ...plan.build(),
      status: 201,
      body: transactionJson(reversal),
      ref: `transaction ${reversal.id} ${ledgerId}`,
      diagnose: (failure) => (failure.role.kind === 'original' ? new AppError('conflict', `Transaction ${transactionId} was already reversed.`) : undefined),
    };
  });
}

/** A transaction of this ledger. Refuses: transaction_not_found. */
export async function transactionOf(context: LedgerContext, ledgerId: string, transactionId: string): Promise<Transaction> {
  const item = await getItem(context.deps, ledgerKeys.transaction(await ledgerOfAnyConsumer(context, ledgerId), transactionId));
  if (!item || item.ledger_id !== ledgerId) throw new AppError('transaction_not_found', `No transaction ${transactionId} in this ledger.`);
  return toTransaction(item);
}

export async function expirePendings(context: LedgerContext): Promise<number> {
  const now = context.deps.clock.now();
  let expired = 0;
  const due = dueKeys(context.deps.client, context.deps.table, {
    index: 'gsi2',
    shards: PENDING_INDEX_SHARDS,
    partitionOf: ledgerKeys.openPendingShard,
    before: now.toISOString(),
  });
  // An item no codec can read is passed and fails the run after the others (`forEachDue`).
  await forEachDue(due, async (key) => {
    const pending = await getItem(context.deps, { pk: key.pk, sk: key.sk });
    if (!pending || pending.status !== 'pending') return;
    const ledger = await ledgerOfAnyConsumer(context, String(pending.ledger_id));
    try {
      await voidPending(context, ledger.consumer_id, ledger.id, String(pending.id), undefined, 'expired');
      expired += 1;
    } catch (error) {
      // Posted or voided between the query and now: nothing left to expire.
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
    }
  });
  return expired;
}
