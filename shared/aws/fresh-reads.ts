import { AppError } from '../kernel/errors';
import { POLICIES, retrying, type RetryTiming } from '../kernel/retry';
import type { TransactItem } from './dynamodb';
import { ConditionsFailed, transact, type TableDeps } from './store';

/**
 * Optimistic concurrency for records written whole: read, decide, then write conditioned on the
 * version read (`versionedPut`). When another writer committed first the condition fails
 * (`StaleRead`), and `withFreshReads` runs the whole read-decide-write again under the one retry
 * policy (shared/kernel/retry.ts: full-jitter backoff, bounded attempts, the request's deadline),
 * then answers 503. Catalog items, stock counts, orders,
 * clients and subscriptions are all written this way.
 */

/** A version condition failed: the record changed since it was read. */
export class StaleRead extends Error {
  constructor() {
    super('the record changed since it was read');
    this.name = 'StaleRead';
  }
}

/**
 * Runs a read-decide-write attempt again while what it read went stale, under the retry policy for
 * contended records (shared/kernel/retry.ts); then 503 `service_unavailable`.
 */
export function withFreshReads<T>(attempt: () => Promise<T>, timing?: RetryTiming): Promise<T> {
  return retrying(POLICIES.contended, attempt, {
    retryable: (error) => error instanceof StaleRead,
    exhausted: () => new AppError('service_unavailable', 'Concurrent changes to this item kept winning; retry the request.'),
    timing,
  });
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
