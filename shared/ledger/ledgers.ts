import { getItem, isConditionalCheckFailed, queryPage, updateItem } from '../aws/store';
import type { Outcome } from '../http/outcome';
import { AppError } from '../kernel/errors';
import { idempotent, PERIOD_CLOSE_LAG_MS, type LedgerContext } from './context';
import { ledgerOf } from './facts';
import type { IdempotencyContext } from './idempotency';
import { TRANSACTION_PARTITIONS, ledgerKeys } from './keys';
import { toLedger } from './records';
import type { Ledger } from './schemas';

/** Ledgers and their closed periods (refusals documented on LedgerService). */

export async function createLedger(context: LedgerContext, consumerId: string, input: { name: string; commodity: string; metadata?: Record<string, string> }, idem?: IdempotencyContext): Promise<Outcome> {
  return idempotent(context, idem, async (now) => {
    const id = context.deps.ids();
    const ledger: Ledger = { id, name: input.name, commodity: input.commodity, metadata: input.metadata ?? {}, closed_through: null, created_at: now.toISOString() };
    const item = {
      ...ledgerKeys.ledger(id),
      entity: 'ledger',
      consumer_id: consumerId,
      ...ledger,
      // closed_through is absent until a period is closed: the posting condition tests for that.
      closed_through: undefined,
      transaction_partitions: TRANSACTION_PARTITIONS,
      gsi1pk: ledgerKeys.ledgersOfConsumer(consumerId),
      gsi1sk: id,
    };
    return { items: [{ Put: { TableName: context.deps.table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }], roles: [{ kind: 'record' }], status: 201, body: JSON.stringify(ledger) };
  });
}

export async function getLedger(context: LedgerContext, consumerId: string, ledgerId: string): Promise<Ledger> {
  const item = await getItem(context.deps, ledgerKeys.ledger(ledgerId));
  if (!item || item.consumer_id !== consumerId) throw new AppError('ledger_not_found', `No ledger ${ledgerId}.`);
  return toLedger(item);
}

export async function listLedgers(context: LedgerContext, consumerId: string, cursor: string | undefined, limit: number): Promise<{ data: Ledger[]; next_cursor: string | null }> {
  const page = await queryPage(context.deps, { index: 'gsi1', partition: ledgerKeys.ledgersOfConsumer(consumerId), cursor, limit, invalidCode: 'invalid' });
  return { data: page.items.map(toLedger), next_cursor: page.next_cursor };
}

export async function closePeriod(context: LedgerContext, consumerId: string, ledgerId: string, closedThrough: string, idem?: IdempotencyContext): Promise<Outcome> {
  await ledgerOf(context, consumerId, ledgerId);
  const now = context.deps.clock.now();
  // Closing is idempotent by nature; with a key, a retry answers the first answer's bytes.
  const replayed = idem ? await context.idempotency.replay(idem, now) : undefined;
  if (replayed) return replayed;
  const answer = await closeThrough(context, consumerId, ledgerId, closedThrough, now);
  return idem ? context.idempotency.remember(idem, 200, JSON.stringify(answer), now) : { status: 200, body: JSON.stringify(answer), replayed: false };
}

async function closeThrough(context: LedgerContext, consumerId: string, ledgerId: string, closedThrough: string, now: Date): Promise<{ ledger_id: string; closed_through: string }> {
  const through = new Date(closedThrough);
  // Not later than a minute ago: a posting effective now may still be committing (./context.ts).
  if (through.getTime() > now.getTime() - PERIOD_CLOSE_LAG_MS) throw new AppError('invalid', `A period can only be closed up to ${PERIOD_CLOSE_LAG_MS / 1000} s ago.`);
  try {
    // Periods only move forward: closing up to an earlier time than already closed changes nothing.
    const updated = await updateItem(context.deps, ledgerKeys.ledger(ledgerId), {
      expression: 'SET closed_through = :t',
      condition: 'attribute_exists(pk) AND (attribute_not_exists(closed_through) OR closed_through < :t)',
      values: { ':t': through.toISOString() },
      returnValues: 'ALL_NEW',
    });
    return { ledger_id: ledgerId, closed_through: String(updated?.closed_through) };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const ledger = await getLedger(context, consumerId, ledgerId);
    return { ledger_id: ledgerId, closed_through: ledger.closed_through ?? through.toISOString() };
  }
}
