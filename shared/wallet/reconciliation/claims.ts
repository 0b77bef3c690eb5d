import { getItems, queryAll, type Item } from '../../aws/store';
import { envelopeOf, eventKeys, type EventEnvelope } from '../../events/outbox';
import { anything, int, obj, opt, str, type Shape } from '../../kernel/codec';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Transaction } from '../../ledger-client/contract';
import type { LedgerOperations } from '../../ledger-client/loader';
import type { StoreDeps } from '../deps';
import { paymentKeys } from '../payments/keys';
import { payoutKeys } from '../payouts/keys';
import { rewardKeys } from '../rewards/keys';
import { toPaymentRewards } from '../rewards/records';
import { subscriptionKeys } from '../subscriptions/keys';
import { topupKeys } from '../topups/keys';
import { transferKeys } from '../transfers/keys';
import { uuidFloor } from './matcher';

/**
 * The wallet side of reconciliation: every money record written since the mark must name a ledger
 * transaction that exists, of its type and with its reference. Which records were written since
 * the mark comes from the tenant's event history: a money record commits with its event in one
 * transaction (DESIGN.md "Events"), so the money events in a stretch of ids are the money records
 * written in it, whatever kind of record and whenever it was first created (a payment captured
 * days after it was authorized, a payout paid when its rail confirmed). Each claim is then read
 * from the record itself, which names the transaction.
 */

export type RecordType = 'transfer' | 'topup' | 'payment' | 'refund' | 'payout' | 'subscription_charge' | 'cashback' | 'points_accrual' | 'points_conversion';

export type RecordReason =
  /** The record names no transaction although its event says money moved. */
  | 'no_transaction'
  /** The transaction it names is not in the tenant's ledger. */
  | 'transaction_missing'
  /** The transaction it names is of another type or reference. */
  | 'transaction_mismatch';

/** What one money record says about the ledger. */
export interface Claim {
  /** Unique per record: the orphan's key. */
  key: string;
  record_type: RecordType;
  record_id: string;
  /** The reference its posting carries. */
  reference_id: string;
  /** The posting types that may be its transaction. */
  types: readonly string[];
  ledger_transaction_id: string | null;
  amount: number;
  commodity: string;
  /** When the record was written (its event's time). */
  since: string;
  /** Where the record is and which of its fields names the transaction: read again when the claim is checked again. */
  record?: { key: { pk: string; sk: string }; field: 'ledger_transaction_id' | 'grants.cashback' | 'grants.points' };
}

/** A claim before its record is read. */
interface Witness extends Omit<Claim, 'ledger_transaction_id' | 'record'> {
  /** The record, and the transaction id it names; absent for a record with no key of its own (a conversion's history entry), whose event is its copy. */
  read?: NonNullable<Claim['record']>;
  /** The transaction id as the event carries it. */
  copy: unknown;
}

/** The events that commit with a money record. */
export const MONEY_EVENTS = [
  'transfer.completed',
  'topup.succeeded',
  'payment.captured',
  'refund.completed',
  'payout.paid',
  'subscription.charged',
  'cashback.granted',
  'points.accrued',
  'points.converted',
] as const;

type NamingField = NonNullable<Claim['record']>['field'];

/** The transaction id a record names in `field`. Pure. */
function namedBy(item: Item, field: NamingField): unknown {
  if (field === 'ledger_transaction_id') return item.ledger_transaction_id;
  // A payment's rewards record, through its codec: a grant it holds names its transaction.
  return toPaymentRewards(item).grants[field === 'grants.cashback' ? 'cashback' : 'points']?.ledger_transaction_id;
}

/**
 * The part of a money event's data a claim is made of, read through a codec (../../kernel/codec.ts):
 * the outbox wrote it from the event type's schema, so a field that does not read is a broken
 * invariant. `ledger_transaction_id` is taken as it is: whether it names a transaction is what is checked.
 */
function payload<T>(shape: Shape<T>): (data: Record<string, unknown>, name: string) => T {
  const read = obj<T>(shape);
  return (data, name) => read(data[name], 'event', `data.${name}`);
}

const named = { ledger_transaction_id: anything };
const transferPaid = payload<{ id: string; amount: number; fee?: number; currency: string; ledger_transaction_id: unknown }>({ id: str, amount: int, fee: opt(int), currency: str, ...named });
const moneyIn = payload<{ id: string; amount: number; currency: string; ledger_transaction_id: unknown }>({ id: str, amount: int, currency: str, ...named });
const paymentCaptured = payload<{ id: string; amount: number; captured_amount?: number; currency: string }>({ id: str, amount: int, captured_amount: opt(int), currency: str });
const subscriptionCharged = payload<{ subscription_id: string; period: number; amount: number; ledger_transaction_id: unknown }>({ subscription_id: str, period: int, amount: int, ...named });
const subscriptionCurrency = opt(obj<{ currency?: string }>({ currency: opt(str) }));
const subscriptionOf = (data: Record<string, unknown>) => subscriptionCurrency(data.subscription, 'event', 'data.subscription');
const cashbackGranted = payload<{ payment_id: string; amount: number; ledger_transaction_id: unknown }>({ payment_id: str, amount: int, ...named });
const pointsAccrued = payload<{ payment_id: string; points: number; commodity: string; ledger_transaction_id: unknown }>({ payment_id: str, points: int, commodity: str, ...named });
const pointsConverted = payload<{ id: string; points: number; points_commodity: string; ledger_transaction_id: unknown }>({ id: str, points: int, points_commodity: str, ...named });

/** The claim a money event's record makes, before the record is read; undefined for other events. Pure. */
function witnessOf(envelope: EventEnvelope, currency: string): Witness | undefined {
  const { data } = envelope;
  const since = envelope.created_at;
  const tenantId = envelope.tenant_id;
  const common = (type: RecordType, id: string, types: readonly string[], reference = id) => ({ key: `${type}:${id}`, record_type: type, record_id: id, reference_id: reference, types, since });
  switch (envelope.type) {
    case 'transfer.completed': {
      const transfer = transferPaid(data, 'transfer');
      return { ...common('transfer', transfer.id, ['transfer']), amount: transfer.amount + (transfer.fee ?? 0), commodity: transfer.currency, read: { key: transferKeys.transfer(tenantId, transfer.id), field: 'ledger_transaction_id' }, copy: transfer.ledger_transaction_id };
    }
    case 'topup.succeeded': {
      const topup = moneyIn(data, 'topup');
      return { ...common('topup', topup.id, ['topup']), amount: topup.amount, commodity: topup.currency, read: { key: topupKeys.topup(topup.id), field: 'ledger_transaction_id' }, copy: topup.ledger_transaction_id };
    }
    case 'payment.captured': {
      const payment = paymentCaptured(data, 'payment');
      return { ...common('payment', payment.id, ['payment', 'payment_capture']), amount: payment.captured_amount ?? payment.amount, commodity: payment.currency, read: { key: paymentKeys.payment(payment.id), field: 'ledger_transaction_id' }, copy: undefined };
    }
    case 'refund.completed': {
      const refund = moneyIn(data, 'refund');
      return { ...common('refund', refund.id, ['refund']), amount: refund.amount, commodity: refund.currency, read: { key: paymentKeys.refund(refund.id), field: 'ledger_transaction_id' }, copy: refund.ledger_transaction_id };
    }
    case 'payout.paid': {
      const payout = transferPaid(data, 'payout');
      return { ...common('payout', payout.id, ['payout']), amount: payout.amount + (payout.fee ?? 0), commodity: payout.currency, read: { key: payoutKeys.payout(payout.id), field: 'ledger_transaction_id' }, copy: payout.ledger_transaction_id };
    }
    case 'subscription.charged': {
      const charge = subscriptionCharged(data, 'charge');
      const id = charge.subscription_id;
      return {
        ...common('subscription_charge', id, ['subscription']),
        key: `subscription_charge:${id}:${charge.period}`,
        amount: charge.amount,
        commodity: subscriptionOf(data)?.currency ?? currency,
        read: { key: subscriptionKeys.charge(id, charge.period), field: 'ledger_transaction_id' },
        copy: charge.ledger_transaction_id,
      };
    }
    case 'cashback.granted': {
      const grant = cashbackGranted(data, 'cashback');
      return { ...common('cashback', grant.payment_id, ['cashback']), amount: grant.amount, commodity: currency, read: { key: rewardKeys.earned(grant.payment_id), field: 'grants.cashback' }, copy: grant.ledger_transaction_id };
    }
    case 'points.accrued': {
      const grant = pointsAccrued(data, 'points');
      return { ...common('points_accrual', grant.payment_id, ['points_accrual']), amount: grant.points, commodity: grant.commodity, read: { key: rewardKeys.earned(grant.payment_id), field: 'grants.points' }, copy: grant.ledger_transaction_id };
    }
    case 'points.converted': {
      const conversion = pointsConverted(data, 'conversion');
      return { ...common('points_conversion', conversion.id, ['points_conversion']), amount: conversion.points, commodity: conversion.points_commodity, copy: conversion.ledger_transaction_id };
    }
    default:
      return undefined;
  }
}

/**
 * The money events of a tenant with ids in [from, to) (instants), in no particular order: each of
 * the history's partitions read over the stretch, only the money events returned.
 */
export async function* moneyEvents(deps: StoreDeps, tenantId: string, from: string, to: string): AsyncGenerator<EventEnvelope> {
  const names = MONEY_EVENTS.map((_, at) => `:e${at}`);
  for (const partition of eventKeys.history(tenantId).partitions) {
    const items = queryAll(deps, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      FilterExpression: `envelope.#type IN (${names.join(', ')})`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':pk': partition, ':from': uuidFloor(Date.parse(from)), ':to': uuidFloor(Date.parse(to)), ...Object.fromEntries(MONEY_EVENTS.map((type, at) => [names[at]!, type])) },
      Limit: 200,
    });
    for await (const item of items) yield envelopeOf(item);
  }
}

/** The claims of these money events, each read from its record (one BatchGetItem per 100). */
export async function claimsOf(deps: StoreDeps, envelopes: readonly EventEnvelope[], currency: string): Promise<Claim[]> {
  const witnesses = envelopes.map((envelope) => witnessOf(envelope, currency)).filter((witness): witness is Witness => witness !== undefined);
  const keyOf = (key: { pk: string; sk: string }) => `${key.pk}\n${key.sk}`;
  const distinct = new Map<string, { pk: string; sk: string }>();
  for (const witness of witnesses) if (witness.read) distinct.set(keyOf(witness.read.key), witness.read.key);
  const items = await getItems(deps, [...distinct.values()], { consistent: false });
  const byKey = new Map([...distinct.keys()].map((key, at) => [key, items[at]]));
  return witnesses.map(({ read, copy, ...claim }) => {
    const record = read ? byKey.get(keyOf(read.key)) : undefined;
    // The record names the transaction; its event (same commit) stands in only where there is no record to read.
    const named = record && read ? namedBy(record, read.field) : copy;
    return { ...claim, ...(read ? { record: read } : {}), ledger_transaction_id: typeof named === 'string' ? named : null };
  });
}

/** Claims checked again with what their records name now (a record corrected since). */
export async function reread(deps: StoreDeps, claims: readonly Claim[]): Promise<Claim[]> {
  const keyOf = (key: { pk: string; sk: string }) => `${key.pk}\n${key.sk}`;
  const distinct = new Map<string, { pk: string; sk: string }>();
  for (const claim of claims) if (claim.record) distinct.set(keyOf(claim.record.key), claim.record.key);
  const items = await getItems(deps, [...distinct.values()], { consistent: false });
  const byKey = new Map([...distinct.keys()].map((key, at) => [key, items[at]]));
  return claims.map((claim) => {
    const item = claim.record ? byKey.get(keyOf(claim.record.key)) : undefined;
    if (!item || !claim.record) return claim;
    const named = namedBy(item, claim.record.field);
    return { ...claim, ledger_transaction_id: typeof named === 'string' ? named : null };
  });
}

/** What the record side needs of a transaction the feed gave. */
export type Seen = Pick<Transaction, 'type' | 'reference_id' | 'created_at'>;

/** Ledger reads at once while claims are checked. */
const LEDGER_CONCURRENCY = 8;

/**
 * The claims the ledger does not back, with why: the transaction each names must be in the
 * tenant's ledger with the claim's reference and one of its types. `seen` holds transactions
 * already read (the feed's); the others are read by id.
 */
export async function unbackedClaims(
  ledger: Pick<LedgerOperations, 'getTransaction'>,
  ledgerId: string,
  claims: readonly Claim[],
  seen: ReadonlyMap<string, Seen>,
): Promise<Map<string, RecordReason>> {
  const verdicts = new Map<string, RecordReason>();
  const check = async (claim: Claim) => {
    if (claim.ledger_transaction_id === null) return verdicts.set(claim.key, 'no_transaction');
    const transaction = seen.get(claim.ledger_transaction_id) ?? (await transactionOrNone(ledger, ledgerId, claim.ledger_transaction_id));
    if (!transaction) return verdicts.set(claim.key, 'transaction_missing');
    if (transaction.reference_id !== claim.reference_id || !claim.types.includes(transaction.type)) verdicts.set(claim.key, 'transaction_mismatch');
  };
  for (let at = 0; at < claims.length; at += LEDGER_CONCURRENCY) await Promise.all(claims.slice(at, at + LEDGER_CONCURRENCY).map(check));
  return verdicts;
}

async function transactionOrNone(ledger: Pick<LedgerOperations, 'getTransaction'>, ledgerId: string, transactionId: string): Promise<Transaction | undefined> {
  try {
    return await ledger.getTransaction(ledgerId, transactionId);
  } catch (error) {
    if (error instanceof LedgerRefusal && error.code === 'transaction_not_found') return undefined;
    throw error;
  }
}
