import type { DynamoDBRecord } from 'aws-lambda';
import { commitVersioned, StaleRead, versionedPut, withFreshReads } from '../../aws/fresh-reads';
import { getItems, queryAll, updateItem, isConditionalCheckFailed } from '../../aws/store';
import { outboxItem } from '../../events/outbox';
import { codec, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps, WalletDeps } from '../deps';
import { ChargeUnanswered, chargeDue, recordBillingMetrics, settleClaim } from './billing';
import { subscriptionKeys } from './keys';
import { subscriptionItem, subscriptionRecord, toSubscription, toSubscriptionRecord, type Subscription, type SubscriptionRecord } from './records';
import type { OwnerScope } from '../principals';

/**
 * Managing a subscription (docs/subscriptions.md): the subscriber or the tenant pauses, resumes or
 * cancels it. Each change is conditioned on the version read (a concurrent change makes the call
 * read again) and emits its event in the same transaction. A change never lands between a charge
 * the ledger posted and its record: it finds the charge's claim and finishes that charge first, so
 * it is ordered after it (each change also refuses service_unavailable while the ledger cannot be
 * reached to finish one: the client retries). Resume charges the current period at once (billing dates count again from
 * then); cancel ends it now, or at the period's end.
 */

async function change(runtime: WalletDeps, scope: OwnerScope, id: string, decide: (before: SubscriptionRecord, now: string) => { after: SubscriptionRecord; type?: string; data?: Record<string, unknown> } | null): Promise<SubscriptionRecord> {
  return withFreshReads(async () => {
    const before = await subscriptionRecord(runtime, scope, id);
    if (before.charging) {
      // A charge holds the subscription, and the ledger may have posted it: finish it under its
      // key, then decide on the subscription as the charge left it (read again).
      try {
        recordBillingMetrics({ [await settleClaim(runtime, before)]: 1 });
      } catch (error) {
        if (!(error instanceof ChargeUnanswered)) throw error;
        // The ledger busy with that key has an answer in a moment: wait for it. Unreachable, it
        // has none to give: answer now, and the client's retry finishes the charge.
        if (!error.busy) throw new AppError('service_unavailable', 'A charge of this subscription is being completed; retry the request.');
      }
      throw new StaleRead();
    }
    const decided = decide(before, runtime.clock.now().toISOString());
    if (!decided) return before;
    await commitVersioned(
      runtime,
      [
        versionedPut(runtime, subscriptionItem(decided.after), before.version),
        ...(decided.type ? [outboxItem(runtime, { type: decided.type, tenantId: before.tenant_id, data: { subscription: toSubscription(decided.after), ...decided.data } }).item] : []),
      ],
      [0],
    );
    return decided.after;
  });
}

const ended = (record: SubscriptionRecord) => new AppError('invalid_transition', `A ${record.status} subscription cannot change.`);

/** Pauses an active or past-due subscription (nothing is charged while paused). Refuses: not_found, invalid_transition (canceled). */
export async function pauseSubscription(runtime: WalletDeps, scope: OwnerScope, id: string): Promise<Subscription> {
  const after = await change(runtime, scope, id, (before, now) => {
    if (before.status === 'canceled') throw ended(before);
    if (before.status === 'paused') return null;
    return { after: { ...before, status: 'paused', pause_reason: 'requested', next_charge_at: null, updated_at: now, version: before.version + 1 }, type: 'subscription.paused', data: { reason: 'requested' } };
  });
  return toSubscription(after);
}

/**
 * Resumes a paused subscription: the current period is charged at once and billing goes on from
 * now. A refused charge starts dunning again from its first try (past_due), under ledger keys of
 * its own. One set to cancel at the period's end still does, at the end of the period charged now.
 * Resuming an active one changes nothing. Refuses: not_found, invalid_transition (canceled).
 */
export async function resumeSubscription(runtime: WalletDeps, scope: OwnerScope, id: string): Promise<Subscription> {
  const resumed = await change(runtime, scope, id, (before, now) => {
    if (before.status === 'canceled') throw ended(before);
    if (before.status !== 'paused') return null;
    return {
      after: {
        ...before,
        status: 'active',
        pause_reason: null,
        retry_count: 0,
        // Counted into every later try's ledger key: try 0 again must not be the key of a try before.
        resumes: (before.resumes ?? 0) + 1,
        anchor_at: now,
        anchor_period: before.periods_charged,
        next_charge_at: now,
        updated_at: now,
        version: before.version + 1,
      },
      type: 'subscription.resumed',
    };
  });
  if (resumed.status === 'active' && resumed.next_charge_at !== null && resumed.next_charge_at <= runtime.clock.now().toISOString()) recordBillingMetrics({ [await chargeDue(runtime, resumed)]: 1 });
  return toSubscription(await subscriptionRecord(runtime, scope, id));
}

/** Cancels now (nothing is charged after), or at the end of the paid period. Refuses: not_found, invalid_transition (already canceled). */
export async function cancelSubscription(runtime: WalletDeps, scope: OwnerScope, id: string, atPeriodEnd: boolean): Promise<Subscription> {
  const after = await change(runtime, scope, id, (before, now) => {
    if (before.status === 'canceled') throw ended(before);
    if (atPeriodEnd && before.status !== 'paused') {
      if (before.cancel_at_period_end) return null;
      // No event yet: subscription.canceled fires when the period ends.
      return { after: { ...before, cancel_at_period_end: true, updated_at: now, version: before.version + 1 } };
    }
    return { after: { ...before, status: 'canceled', next_charge_at: null, canceled_at: now, updated_at: now, version: before.version + 1 }, type: 'subscription.canceled' };
  });
  return toSubscription(after);
}

/**
 * When a payer's wallet is credited (topup.succeeded, transfer.completed to them), its past-due
 * subscriptions are made due now: the billing worker (every minute) retries them within a minute
 * instead of at their scheduled retry. A stream worker beside the outbox relay. The batch's payees'
 * dunning hints are read in one BatchGetItem, and only a payee with a live hint is looked up: most
 * credits go to payers with nothing past due, and cost no query.
 */
export async function retryOnCredit(deps: StoreDeps, records: readonly DynamoDBRecord[]): Promise<number> {
  const payees = [...new Set(records.map(creditedPayee).filter((payee): payee is string => payee !== undefined))];
  if (payees.length === 0) return 0;
  const now = deps.clock.now().toISOString();
  const hints = await getItems(deps, payees.map(subscriptionKeys.dunningHint));
  let advanced = 0;
  for (const [index, payee] of payees.entries()) {
    const hint = hints[index];
    if (hint !== undefined && decodeDunningHint(hint).until > now) advanced += await advancePastDue(deps, payee, now);
  }
  return advanced;
}

/** A payee's dunning hint: until when a credit to them may make a past-due subscription due. */
const decodeDunningHint = codec<{ until: string }>('dunning_hint', { until: str });

/** The payee of a new outbox event that credits a user, read from the stream image attribute by attribute. */
function creditedPayee(record: DynamoDBRecord): string | undefined {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || image?.entity?.S !== 'event') return undefined;
  const envelope = image.envelope?.M;
  const type = envelope?.type?.S;
  const data = envelope?.data?.M;
  return type === 'topup.succeeded' ? data?.topup?.M?.user_id?.S : type === 'transfer.completed' ? data?.transfer?.M?.to_user_id?.S : undefined;
}

/** Makes the payee's past-due subscriptions due now (those not due already). */
async function advancePastDue(deps: StoreDeps, payee: string, now: string): Promise<number> {
  let advanced = 0;
  for await (const found of queryAll(deps, {
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    FilterExpression: '#status = :past_due',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':pk': subscriptionKeys.userSubscriptions(payee), ':past_due': 'past_due' },
  })) {
    const due = toSubscriptionRecord(found);
    if (due.next_charge_at !== null && due.next_charge_at <= now) continue;
    try {
      await updateItem(deps, subscriptionKeys.subscription(due.id), {
        expression: 'SET next_charge_at = :now, gsi3sk = :due',
        condition: '#status = :past_due AND retry_count = :try',
        names: { '#status': 'status' },
        values: { ':now': now, ':due': subscriptionKeys.due(due.id, now).gsi3sk, ':past_due': 'past_due', ':try': due.retry_count },
      });
      advanced += 1;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
  return advanced;
}
