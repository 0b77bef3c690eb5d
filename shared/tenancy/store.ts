import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from '../aws/dynamodb';
import { AppError } from '../errors';
import { decodeCursor, encodeCursor } from '../http/cursor';
import type { StoreDeps } from './deps';

/** Small WalletTable reads the tenancy services share. */

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export async function getItem(deps: StoreDeps, key: { pk: string; sk: string }): Promise<Record<string, unknown> | undefined> {
  const result = await deps.client.send(new GetCommand({ TableName: deps.table, Key: key, ConsistentRead: true }));
  return result.Item;
}

export interface PageQuery {
  /** Absent: the table's own key. */
  index?: 'gsi1' | 'gsi2' | 'gsi3';
  partition: string;
  cursor: string | undefined;
  limit: number;
  /** Newest first (ids are UUIDv7) unless false. */
  descending?: boolean;
  filter?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> };
  /**
   * With a filter, the most items one request may evaluate: a rare match must not make one request
   * read a whole partition. A page that stops early has fewer items and a next_cursor.
   */
  scanBudget?: number;
}

const unknownCursor = () =>
  new AppError('invalid_request', 'cursor is not a cursor this listing returned.', { errors: [{ field: 'query.cursor', message: 'unknown cursor' }] });

/**
 * One page of a partition, newest first. The cursor is the opaque key the previous page ended at;
 * one of another listing (another partition, index or shape) is invalid_request, never a 500.
 */
export async function queryPage(deps: StoreDeps, query: PageQuery): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null }> {
  const pkName = query.index ? `${query.index}pk` : 'pk';
  const keyNames = query.index ? ['pk', 'sk', pkName, `${query.index}sk`] : ['pk', 'sk'];
  let start: Record<string, unknown> | undefined;
  if (query.cursor !== undefined) {
    start = decodeCursor(query.cursor, 'invalid_request', keyNames);
    if (start[pkName] !== query.partition || Object.keys(start).length !== keyNames.length) throw unknownCursor();
  }
  const items: Record<string, unknown>[] = [];
  let budget = query.scanBudget ?? Number.POSITIVE_INFINITY;
  do {
    // Never evaluate more than can be returned, so the key DynamoDB stops at is the page's end.
    const pageLimit = Math.max(1, Math.min(query.limit - items.length, budget));
    const result = await deps.client.send(
      new QueryCommand({
        TableName: deps.table,
        IndexName: query.index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': pkName, ...query.filter?.names },
        ExpressionAttributeValues: { ':pk': query.partition, ...query.filter?.values },
        FilterExpression: query.filter?.expression,
        ScanIndexForward: query.descending === false,
        Limit: pageLimit,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(result.Items ?? []));
    budget -= result.ScannedCount ?? pageLimit;
    start = result.LastEvaluatedKey;
  } while (query.filter && start && items.length < query.limit && budget > 0);
  return { items, next_cursor: start ? encodeCursor(start) : null };
}

export const isConditionalCheckFailed = (error: unknown): boolean =>
  (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';

/** The items of a TransactWriteItems whose conditions failed, by index. */
export class ConditionsFailed extends Error {
  constructor(readonly indexes: readonly number[]) {
    super(`transaction conditions failed at items ${indexes.join(', ')}`);
    this.name = 'ConditionsFailed';
  }
}

const CONFLICT_ATTEMPTS = 5;

/**
 * One TransactWriteItems. A cancellation caused only by a concurrent transaction on the same items
 * is sent again (a few times, jittered); failed conditions become `ConditionsFailed` for the
 * caller, which knows what each condition meant.
 */
export async function transact(deps: Pick<StoreDeps, 'client'>, items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await deps.client.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const named = error as { name?: string; CancellationReasons?: { Code?: string }[] };
      if (named.name !== 'TransactionCanceledException') throw error;
      const reasons = named.CancellationReasons ?? [];
      const failed = reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
      if (failed.length > 0) throw new ConditionsFailed(failed);
      if (attempt >= CONFLICT_ATTEMPTS || !reasons.some((reason) => reason.Code === 'TransactionConflict')) {
        throw new AppError('service_unavailable', 'The change collided with concurrent writes; retry the request.');
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}
