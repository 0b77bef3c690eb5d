import { decodeCursor, encodeCursor, unknownCursor, type CursorBinding } from '../http/cursor';
import { queryRange, type Index, type Item, type PageQuery, type TableDeps } from './store';

/**
 * One page of a listing spread over several partitions (a sharded account's entries, a ledger's
 * transactions over its index shards), merged by sort key, newest first. Sort key values are
 * unique across the partitions, so the cursor is the last value returned, bound to the listing and
 * its owner: it stays valid when partitions are added (their items sort in by value).
 *
 * Each partition is read once per page, up to `limit + 1` items evaluated. A partition that may
 * hold more stopped at some value; only items above the highest such value are certain to have
 * nothing unseen above them, so the page ends there (with a filter, a page can be short, never
 * skip an item).
 */

export interface MergedPageQuery {
  index?: Index;
  partitions: readonly string[];
  /** Every sort key of the listing lies in [from, to]; a cursor outside it is refused. */
  from: string;
  to: string;
  /** What the cursor is bound to (shared/http/cursor.ts). */
  binding: CursorBinding;
  cursor: string | undefined;
  limit: number;
  /** Strongly consistent (the table's own key only). */
  consistent?: boolean;
  filter?: PageQuery['filter'];
  /** The code a cursor of another listing answers (the ledger's catalogue says `invalid`). */
  invalidCode?: 'invalid_request' | 'invalid';
}

export async function mergedPage(deps: TableDeps, query: MergedPageQuery): Promise<{ items: Item[]; next_cursor: string | null }> {
  const code = query.invalidCode ?? 'invalid_request';
  let to = query.to;
  if (query.cursor !== undefined) {
    to = decodeCursor(query.cursor, query.binding, ['s'], code).s!;
    if (to < query.from || to > query.to) throw unknownCursor(code);
  }
  const sortKey = query.index ? `${query.index}sk` : 'sk';
  const reads = await Promise.all(
    query.partitions.map((partition) =>
      queryRange(deps, { index: query.index, partition, from: query.from, to, limit: query.limit + 1, consistent: query.consistent, filter: query.filter }),
    ),
  );
  // Above the highest place a partition stopped at, every partition has been read in full.
  const stops = reads.flatMap((read) => (read.stoppedAt === undefined ? [] : [read.stoppedAt]));
  const bound = stops.reduce<string | undefined>((high, stop) => (high === undefined || stop > high ? stop : high), undefined);
  const seen = reads
    .flatMap((read) => read.items)
    .filter((item) => String(item[sortKey]) !== (query.cursor === undefined ? undefined : to) && (bound === undefined || String(item[sortKey]) >= bound))
    .sort((a, b) => (String(a[sortKey]) < String(b[sortKey]) ? 1 : -1));
  const items = seen.slice(0, query.limit);
  const last = items.length > 0 ? String(items[items.length - 1]![sortKey]) : undefined;
  const next = seen.length > query.limit ? last : bound;
  return { items, next_cursor: next === undefined ? null : encodeCursor(query.binding, { s: next }) };
}
