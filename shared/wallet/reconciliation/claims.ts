import { getItems, queryAll, type Item } from '../../aws/store';
import { eventKeys, type EventEnvelope } from '../../events/outbox';
import { LedgerRefusal } from '../../ledger-client/client';
import type { Transaction } from '../../ledger-client/contract';
import type { LedgerOperations } from '../../ledger-client/loader';
import type { StoreDeps } from '../deps';
import { paymentKeys } from '../payments/keys';
import { payoutKeys } from '../payouts/keys';
import { rewardKeys } from '../rewards/keys';
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
  const grant = field === 'grants.cashback' ? 'cashback' : 'points';
  return (item.grants as Record<string, { ledger_transaction_id?: string } | null> | undefined)?.[grant]?.ledger_transaction_id;
}

/** The claim a money event's record makes, before the record is read; undefined for other events. Pure. */
function witnessOf(envelope: EventEnvelope, currency: string): Witness | undefined {
  const data = envelope.data as Record<string, Record<string, unknown> | undefined>;
  const since = envelope.created_at;
  const tenantId = envelope.tenant_id;
  const common = (type: RecordType, id: string, types: readonly string[], reference = id) => ({ key: `${type}:${id}`, record_type: type, record_id: id, reference_id: reference, types, since });
  switch (envelope.type) {
    case 'transfer.completed': {
      const transfer = data.transfer!;
      const id = String(transfer.id);
      return { ...common('transfer', id, ['transfer']), amount: Number(transfer.amount) + Number(transfer.fee ?? 0), commodity: String(transfer.currency), read: { key: transferKeys.transfer(tenantId, id), field: 'ledger_transaction_id' }, copy: transfer.ledger_transaction_id };
    }
    case 'topup.succeeded': {
      const topup = data.topup!;
      const id = String(topup.id);
      return { ...common('topup', id, ['topup']), amount: Number(topup.amount), commodity: String(topup.currency), read: { key: topupKeys.topup(id), field: 'ledger_transaction_id' }, copy: topup.ledger_transaction_id };
    }
    case 'payment.captured': {
      const payment = data.payment!;
      const id = String(payment.id);
      return { ...common('payment', id, ['payment', 'payment_capture']), amount: Number(payment.captured_amount ?? payment.amount), commodity: String(payment.currency), read: { key: paymentKeys.payment(id), field: 'ledger_transaction_id' }, copy: undefined };
    }
    case 'refund.completed': {
      const refund = data.refund!;
      const id = String(refund.id);
      return { ...common('refund', id, ['refund']), amount: Number(refund.amount), commodity: String(refund.currency), read: { key: paymentKeys.refund(id), field: 'ledger_transaction_id' }, copy: refund.ledger_transaction_id };
    }
    case 'payout.paid': {
      const payout = data.payout!;
      const id = String(payout.id);
      return { ...common('payout', id, ['payout']), amount: Number(payout.amount) + Number(payout.fee ?? 0), commodity: String(payout.currency), read: { key: payoutKeys.payout(id), field: 'ledger_transaction_id' }, copy: payout.ledger_transaction_id };
    }
    case 'subscription.charged': {
      const charge = data.charge!;
      const id = String(charge.subscription_id);
      const period = Number(charge.period);
      return {
        ...common('subscription_charge', id, ['subscription']),
        key: `subscription_charge:${id}:${period}`,
        amount: Number(charge.amount),
        commodity: String(data.subscription?.currency ?? currency),
        read: { key: subscriptionKeys.charge(id, period), field: 'ledger_transaction_id' },
        copy: charge.ledger_transaction_id,
      };
    }
    case 'cashback.granted': {
      const grant = data.cashback!;
      const id = String(grant.payment_id);
      return { ...common('cashback', id, ['cashback']), amount: Number(grant.amount), commodity: currency, read: { key: rewardKeys.earned(id), field: 'grants.cashback' }, copy: grant.ledger_transaction_id };
    }
    case 'points.accrued': {
      const grant = data.points!;
      const id = String(grant.payment_id);
      return { ...common('points_accrual', id, ['points_accrual']), amount: Number(grant.points), commodity: String(grant.commodity), read: { key: rewardKeys.earned(id), field: 'grants.points' }, copy: grant.ledger_transaction_id };
    }
    case 'points.converted': {
      const conversion = data.conversion!;
      const id = String(conversion.id);
      return { ...common('points_conversion', id, ['points_conversion']), amount: Number(conversion.points), commodity: String(conversion.points_commodity), copy: conversion.ledger_transaction_id };
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
    for await (const item of items) yield item.envelope as EventEnvelope;
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
