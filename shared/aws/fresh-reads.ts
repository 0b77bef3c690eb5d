import { AppError } from '../kernel/errors';
import type { TransactItem } from './dynamodb';
import { ConditionsFailed, transact, type TableDeps } from './store';

/**
 * Optimistic concurrency for records written whole: read, decide, then write conditioned on the
 * version read (`versionedPut`). When another writer committed first the condition fails
 * (`StaleRead`), and `withFreshReads` runs the whole read-decide-write again, with full-jitter
 * backoff, a bounded number of times, then answers 503. Catalog items, stock counts, orders,
 * clients and subscriptions are all written this way.
 */

/** A version condition failed: the record changed since it was read. */
export class StaleRead extends Error {
  constructor() {
    super('the record changed since it was read');
    this.name = 'StaleRead';
  }
}

const FRESH_READ_ATTEMPTS = 30;

/** Runs a read-decide-write attempt again while what it read went stale; then 503 `service_unavailable`. */
export async function withFreshReads<T>(attempt: () => Promise<T>, sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))): Promise<T> {
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StaleRead)) throw error;
      if (n >= FRESH_READ_ATTEMPTS) throw new AppError('service_unavailable', 'Concurrent changes to this item kept winning; retry the request.');
      // The ceiling grows to a second: fifty writers on one item need their tries spread that wide.
      await sleep(Math.random() * Math.min(1_000, 5 * 2 ** n));
    }
  }
}

/**
 * Sends the transaction. A failed condition on one of `versioned` (item indexes) is a stale read;
 * any other failed condition goes to `onOther` (a uniqueness guard, say), which throws what it
 * means; without one it is a stale read too.
 */
export async function commitVersioned(deps: Pick<TableDeps, 'client'>, items: TransactItem[], versioned: number[], onOther?: (failed: number[]) => never): Promise<void> {
  try {
    await transact(deps, items);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    if (!onOther || error.indexes.some((index) => versioned.includes(index))) throw new StaleRead();
    onOther(error.indexes);
  }
}

/** Replaces a record whole, conditioned on the version it was read at. */
export const versionedPut = (deps: Pick<TableDeps, 'table'>, item: Record<string, unknown>, readVersion: number): TransactItem => ({
  Put: { TableName: deps.table, Item: item, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': readVersion } },
});
