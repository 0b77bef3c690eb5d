import { StoredItemInvalid } from '../kernel/codec';
import { logger } from '../kernel/log';
import type { DocumentClient } from './dynamodb';
import { queryAll } from './store';

type DueIndex = 'gsi1' | 'gsi2' | 'gsi3';

/**
 * The items a sharded "due" index lists up to a time: for each shard partition `partitionOf(n)`
 * of `index` (keys `<index>pk`/`<index>sk`, sort keys `<ISO time>#<id>`), every entry due at or
 * before `before`, all pages, as the index projects it (always with the table keys). The expiry,
 * billing and sweeper workers read their work this way.
 */
export async function* dueKeys(
  client: DocumentClient,
  table: string,
  options: { index: DueIndex; shards: number; partitionOf: (shard: number) => string; before: string },
): AsyncGenerator<Record<string, unknown> & { pk: string; sk: string }> {
  for (let shard = 0; shard < options.shards; shard += 1) {
    yield* dueEntries(client, table, { index: options.index, partition: options.partitionOf(shard), before: options.before });
  }
}

/**
 * One partition of a due index, in time order: the entries due at or before `before` and, when
 * given, after `after` (an instant: the entries of that very instant are left out), with only the
 * `projection`'s attributes when given (the table keys always). A walk that keeps its own mark
 * (the saga's sweeper) reads its stretch this way.
 */
export async function* dueEntries(
  client: DocumentClient,
  table: string,
  options: { index: DueIndex; partition: string; before: string; after?: string; projection?: string; names?: Record<string, string> },
): AsyncGenerator<Record<string, unknown> & { pk: string; sk: string }> {
  const sk = `${options.index}sk`;
  const entries = queryAll(
    { client, table },
    {
      IndexName: options.index,
      // `~` sorts after `#`: an entry due exactly at `before` is due, one at exactly `after` is not.
      KeyConditionExpression: options.after === undefined ? `${options.index}pk = :pk AND ${sk} < :before` : `${options.index}pk = :pk AND ${sk} BETWEEN :after AND :before`,
      ExpressionAttributeValues: { ':pk': options.partition, ':before': `${options.before}~`, ...(options.after === undefined ? {} : { ':after': `${options.after}~` }) },
      ...(options.projection === undefined ? {} : { ProjectionExpression: `pk, sk, ${sk}, ${options.projection}` }),
      ...(options.names === undefined ? {} : { ExpressionAttributeNames: options.names }),
      Limit: 100,
    },
  );
  for await (const item of entries) yield { ...item, pk: String(item.pk), sk: String(item.sk) };
}

/**
 * What a worker's run does with an item it cannot read (`StoredItemInvalid`: written outside the
 * platform): `pass` logs it with its key and lets the run go on, so one such item does not stop
 * the others; `end` then fails the run with the first, every run until the item is mended (the
 * scheduled worker's errors alarm, docs/runbook.md "Scheduled worker errors"). Any other error is
 * thrown at once.
 */
export class UnreadableItems {
  private first: StoredItemInvalid | undefined;

  pass(error: unknown, key: { pk: unknown; sk?: unknown }): void {
    if (!(error instanceof StoredItemInvalid)) throw error;
    logger.error('an item the worker cannot read: passed, the run fails after the others', { pk: String(key.pk), sk: String(key.sk ?? ''), error });
    this.first ??= error;
  }

  end(): void {
    if (this.first) throw this.first;
  }
}

/** `work` on each due key in turn, an unreadable item passed and the run failed after the others (`UnreadableItems`). */
export async function forEachDue<K extends { pk: string; sk: string }>(due: AsyncIterable<K>, work: (key: K) => Promise<void>): Promise<void> {
  const unreadable = new UnreadableItems();
  for await (const key of due) {
    try {
      await work(key);
    } catch (error) {
      unreadable.pass(error, key);
    }
  }
  unreadable.end();
}
