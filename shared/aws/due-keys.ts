import type { DocumentClient } from './dynamodb';
import { queryAll } from './store';

/**
 * The items a sharded "due" index lists up to a time: for each shard partition `partitionOf(n)`
 * of `index` (keys `<index>pk`/`<index>sk`, sort keys `<ISO time>#<id>`), every entry due at or
 * before `before`, all pages, as the index projects it (always with the table keys). The expiry,
 * billing and sweeper workers read their work this way.
 */
export async function* dueKeys(
  client: DocumentClient,
  table: string,
  options: { index: 'gsi1' | 'gsi2' | 'gsi3'; shards: number; partitionOf: (shard: number) => string; before: string },
): AsyncGenerator<Record<string, unknown> & { pk: string; sk: string }> {
  for (let shard = 0; shard < options.shards; shard += 1) {
    const due = queryAll(
      { client, table },
      {
        IndexName: options.index,
        KeyConditionExpression: `${options.index}pk = :pk AND ${options.index}sk < :before`,
        // `~` sorts after `#`: an entry due exactly at `before` is due.
        ExpressionAttributeValues: { ':pk': options.partitionOf(shard), ':before': `${options.before}~` },
        Limit: 100,
      },
    );
    for await (const item of due) yield { ...item, pk: String(item.pk), sk: String(item.sk) };
  }
}
