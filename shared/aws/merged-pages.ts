import { decodeCursor, encodeCursor, unknownCursor, type CursorBinding } from '../http/cursor';
import { shardOf } from '../kernel/ids';
import { queryRange, withCreatedRange, type CreatedRange, type Index, type Item, type PageQuery, type TableDeps } from './store';

/**
 * Listings spread over several partitions (a sharded account's entries, a ledger's transactions
 * over its index shards), merged by sort key. Sort key values are unique across the partitions,
 * so a position is one sort key value: a cursor stays valid when partitions are added (their items
 * sort in by value).
 *
 * A k-way merge: each partition is read a few items at a time, and an item is taken only when
 * every partition that may still hold a better one has one in hand, so pages are full and in
 * order. Reads are bounded: a sparse filter can exhaust the request budget, and then the page ends
 * at the furthest place every partition has been read to (short, never skipping an item).
 */

export interface MergedRange {
  index?: Index;
  partitions: readonly string[];
  /** The sort key range read, inclusive; `after` (a position already returned) is left out. */
  from: string;
  to: string;
  after?: string;
  limit: number;
  /** Newest (highest) first unless false. */
  descending?: boolean;
  /** Strongly consistent (the table's own key only). */
  consistent?: boolean;
  filter?: PageQuery['filter'];
}

interface Cursorless {
  partition: string;
  /** Items read and not yet taken, in reading order. */
  held: Item[];
  /** Where reading goes on from: everything before it has been read. */
  position: string;
  /** `position` was read already and is not to be returned again. */
  seen: boolean;
  done: boolean;
}

/** The items of the range in order, at most `limit`, and the position to go on from (none: the end). */
export async function mergeRange(deps: TableDeps, query: MergedRange): Promise<{ items: Item[]; next: string | undefined }> {
  const descending = query.descending !== false;
  const sortKey = query.index ? `${query.index}sk` : 'sk';
  const keyOf = (item: Item) => String(item[sortKey]);
  const before = (a: string, b: string) => (descending ? a > b : a < b);
  const start = query.after ?? (descending ? query.to : query.from);
  const parts: Cursorless[] = query.partitions.map((partition) => ({ partition, held: [], position: start, seen: query.after !== undefined, done: false }));
  // A few items per partition per read: together about a page, more when there are few partitions.
  const perRead = Math.min(query.limit + 1, Math.ceil((query.limit * 1.5) / parts.length) + 2);
  const budget = 3 * parts.length + 8;
  let requests = 0;

  const read = async (part: Cursorless) => {
    requests += 1;
    const [from, to] = descending ? [query.from, part.position] : [part.position, query.to];
    const result = await queryRange(deps, { index: query.index, partition: part.partition, from, to, limit: perRead, descending, consistent: query.consistent, filter: query.filter });
    part.held.push(...result.items.filter((item) => !(part.seen && keyOf(item) === part.position)));
    part.done = result.stoppedAt === undefined;
    if (result.stoppedAt !== undefined) [part.position, part.seen] = [result.stoppedAt, true];
  };

  await Promise.all(parts.map(read));
  const items: Item[] = [];
  let exhausted = false;
  while (items.length < query.limit) {
    const empty = parts.filter((part) => part.held.length === 0 && !part.done);
    if (empty.length > 0) {
      if (requests + empty.length > budget) {
        exhausted = true;
        break;
      }
      await Promise.all(empty.map(read));
      continue;
    }
    const best = parts.reduce<Cursorless | undefined>((top, part) => (part.held.length > 0 && (!top || before(keyOf(part.held[0]!), keyOf(top.held[0]!))) ? part : top), undefined);
    if (!best) break;
    items.push(best.held.shift()!);
  }

  const unfinished = parts.filter((part) => !part.done).map((part) => part.position);
  if (exhausted) {
    // Every partition has been read up to the least advanced unfinished position: what is held
    // before it is certain, and the next page starts there.
    const frontier = unfinished.reduce((least, position) => (before(least, position) ? least : position));
    const certain = parts
      .flatMap((part) => part.held)
      .filter((item) => !before(frontier, keyOf(item)))
      .sort((a, b) => (before(keyOf(a), keyOf(b)) ? -1 : 1));
    const room = query.limit - items.length;
    items.push(...certain.slice(0, room));
    return { items, next: certain.length > room ? keyOf(items[items.length - 1]!) : frontier };
  }
  const more = unfinished.length > 0 || parts.some((part) => part.held.length > 0);
  return { items, next: more && items.length > 0 ? keyOf(items[items.length - 1]!) : undefined };
}

export interface MergedPageQuery extends Omit<MergedRange, 'after' | 'descending'> {
  /** What the cursor is bound to (shared/http/cursor.ts). */
  binding: CursorBinding;
  cursor: string | undefined;
  /** The code a cursor of another listing answers (the ledger's catalogue says `invalid`). */
  invalidCode?: 'invalid_request' | 'invalid';
}

/** One page, newest first, behind an opaque cursor bound to the listing and its owner. */
export async function mergedPage(deps: TableDeps, query: MergedPageQuery): Promise<{ items: Item[]; next_cursor: string | null }> {
  const code = query.invalidCode ?? 'invalid_request';
  let after: string | undefined;
  if (query.cursor !== undefined) {
    after = decodeCursor(query.cursor, query.binding, ['s'], code).s!;
    if (after < query.from || after > query.to) throw unknownCursor(code);
  }
  const { items, next } = await mergeRange(deps, { ...query, after });
  return { items, next_cursor: next === undefined ? null : encodeCursor(query.binding, { s: next }) };
}

/**
 * An item collection spread over `count` partitions (`<prefix>#<n>`, `n` from a hash of the id),
 * sorted by id: a history that takes `count` times one partition's write rate and is read from
 * the table itself, consistently, with no index entry per item (a tenant's events and transfers,
 * a ledger's transactions). Ids are UUIDs, so every one lies between `from` and `to`.
 */
export interface SpreadCollection {
  key(id: string): { pk: string; sk: string };
  readonly partitions: string[];
  from: string;
  to: string;
}

export function spreadCollection(prefix: string, count: number): SpreadCollection {
  return {
    key: (id) => ({ pk: `${prefix}#${shardOf(id, count)}`, sk: id }),
    // Listed only when read: every write builds the collection for one item's key.
    get partitions() {
      return Array.from({ length: count }, (_, n) => `${prefix}#${n}`);
    },
    from: '0',
    to: 'g',
  };
}

/** One page of a spread collection, newest first, read consistently. */
export function collectionPage(
  deps: TableDeps,
  collection: SpreadCollection,
  query: Pick<MergedPageQuery, 'binding' | 'cursor' | 'limit' | 'filter' | 'invalidCode'> & { created?: CreatedRange },
): Promise<{ items: Item[]; next_cursor: string | null }> {
  const { created, ...rest } = query;
  return mergedPage(deps, { ...rest, filter: withCreatedRange(query.filter, created), partitions: collection.partitions, from: collection.from, to: collection.to, consistent: true });
}
