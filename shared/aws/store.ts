import { randomUUID } from 'node:crypto';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DocumentClient, type QueryCommandInput } from './dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { decodeCursor, encodeCursor, unknownCursor } from '../http/cursor';
import { AppError } from '../kernel/errors';
import { POLICIES, retrying, transientAwsFailure, type RetryTiming } from '../kernel/retry';
import type { TransactItem } from './dynamodb';

// Through getBuiltinModule, never an ES import (docs/decisions.md, "node:http and node:util").
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

/** A transaction's cancellation reason as DynamoDB sends it (`Item` still in wire form). */
interface CancellationReason {
  Code?: string;
  Message?: string;
  Item?: Record<string, unknown>;
}

/**
 * THE store: every DynamoDB read and write of both tables goes through these few functions (the
 * table manifest and the local bootstrap aside), so retries, paging and cancellation reasons are
 * handled once. Every request it sends is retried here and only here, under the one retry policy
 * (shared/kernel/retry.ts: throttling, no answer, conflicts, unprocessed batch items; the SDK
 * client sends each request once, ./clients.ts), within the request's deadline. Services take a
 * `TableDeps` (a client and a table name) and never send commands of their own.
 *
 *  - `getItem`, `getItems`: items by key, strongly consistent by default;
 *  - `putItem`, `updateItem`: one conditional write, retried like a transaction when held by
 *    another transaction (a failed condition throws the SDK's
 *    ConditionalCheckFailedException: `isConditionalCheckFailed` tells it apart), and after a
 *    lost answer without taking its own applied attempt for another writer's (below);
 *  - `putItems`: unconditional puts in batches, for items every writer writes the same;
 *  - `queryPage`: one page of a partition behind an opaque cursor (listings);
 *  - `queryAll`: every item of a key condition, page after page (workers, small partitions);
 *  - `transact`: one TransactWriteItems under the one retry policy, its failed conditions
 *    decoded for the caller to map to its own domain codes.
 *
 * **A write sent again after a lost answer.** A timeout, a dropped connection or a 5xx leaves the
 * outcome unknown: the attempt may have been applied. A transaction sent again keeps its
 * `ClientRequestToken`, so DynamoDB applies it once. A single write has no token, so its own
 * earlier attempt would fail the condition of the next one, and the caller would take its own
 * write for another writer's (409, a refusal, a 500, a claim left held). So, once an attempt of
 * the call was lost, the next ones ask for the item when their condition fails
 * (`ReturnValuesOnConditionCheckFailure: ALL_OLD`) and recognise the call's own write:
 *  - `putItem`: the stored item is the item sent. Our conditional puts carry an id or time of
 *    their call (a key record's operation id, an audit row's id); where two writers may put the
 *    same item (a sweep mark, an access record, an orphan, a delivery), either's is as good;
 *  - `updateItem`: every update also sets `WRITE_ID` to an id of its call, and a send after a
 *    lost answer adds `WRITE_ID <> <that id>` to its condition: the stored item carrying the id is
 *    this call's write, which also keeps an update that would pass its condition again (ADD
 *    counters, unconditional updates) from being applied twice.
 * The write then counts as done. An item another writer changed is still a failed condition
 * (`isConditionalCheckFailed`). Not covered: an own write applied and then overwritten by another
 * writer before the next send (a put then fails its condition; an update's own condition decides
 * again, as before): the window is one backoff long.
 */

export interface TableDeps {
  client: DocumentClient;
  /** The table's name. */
  table: string;
}

export type Item = Record<string, unknown>;

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** One item by key; `undefined` when there is none. */
export async function getItem(
  deps: TableDeps & TransactOptions,
  key: { pk: string; sk: string },
  options: { consistent?: boolean; projection?: string; names?: Record<string, string> } = {},
): Promise<Item | undefined> {
  const result = await sendRetried(deps, () =>
    deps.client.send(new GetCommand({ TableName: deps.table, Key: key, ConsistentRead: options.consistent ?? true, ProjectionExpression: options.projection, ExpressionAttributeNames: options.names })),
  );
  return withoutWriteId(result.Item);
}

/** What one BatchGetItem takes. */
const BATCH_GET_MAX_KEYS = 100;

/**
 * Items by key (distinct keys) in consistent BatchGetItems of at most 100 keys each, in the order
 * asked; absent ones undefined. Keys DynamoDB returns unprocessed (throttling) are asked again under
 * the one retry policy, then the read is 503 `service_unavailable`.
 */
export async function getItems(
  deps: TableDeps & TransactOptions,
  keys: readonly { pk: string; sk: string }[],
  options: { consistent?: boolean; projection?: string; names?: Record<string, string> } = {},
): Promise<(Item | undefined)[]> {
  const found = new Map<string, Item>();
  await untilProcessed(deps, keys, BATCH_GET_MAX_KEYS, async (asked) => {
    const result = await deps.client.send(
      new BatchGetCommand({
        RequestItems: {
          [deps.table]: { Keys: asked, ConsistentRead: options.consistent ?? true, ProjectionExpression: withKeys(options.projection), ExpressionAttributeNames: options.names },
        },
      }),
    );
    for (const item of result.Responses?.[deps.table] ?? []) found.set(`${String(item.pk)}\n${String(item.sk)}`, withoutWriteId(item));
    return (result.UnprocessedKeys?.[deps.table]?.Keys ?? []) as { pk: string; sk: string }[];
  });
  return keys.map((key) => found.get(`${key.pk}\n${key.sk}`));
}

/** A projection still needs the keys, to put each item back in the order asked. */
const withKeys = (projection: string | undefined) => {
  if (projection === undefined) return undefined;
  const named = new Set(projection.split(',').map((part) => part.trim()));
  return [projection, ...['pk', 'sk'].filter((key) => !named.has(key))].join(', ');
};

export interface Expression {
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * One put, under a condition when given (`attribute_not_exists(pk)` for "create once"). A
 * conditional put sent again after a lost answer whose condition then fails asks for the item
 * (ALL_OLD): the item as sent means the lost attempt was applied, and the put succeeded (see
 * "A write sent again after a lost answer" above).
 */
export async function putItem(deps: TableDeps & TransactOptions, item: Item, options: Expression & { condition?: string } = {}): Promise<void> {
  let lostBefore = false;
  await sendRetried(deps, async () => {
    const recognise = lostBefore && options.condition !== undefined;
    try {
      await deps.client.send(
        new PutCommand({
          TableName: deps.table,
          Item: item,
          ConditionExpression: options.condition,
          ExpressionAttributeNames: options.names,
          ExpressionAttributeValues: options.values,
          ReturnValuesOnConditionCheckFailure: recognise ? 'ALL_OLD' : undefined,
        }),
      );
    } catch (error) {
      if (recognise && isConditionalCheckFailed(error) && sameItem(itemOfFailure(error), item)) return;
      lostBefore ||= transientAwsFailure(error) === 'lost';
      throw error;
    }
  });
}

/** What one BatchWriteItem takes. */
const BATCH_WRITE_MAX_ITEMS = 25;

/**
 * Puts items in BatchWriteItems of at most 25, asking again for those DynamoDB returns
 * unprocessed (throttling) under the one retry policy, then 503 `service_unavailable`. A batch
 * takes no conditions and is not atomic: for items that are the same bytes whoever writes them and
 * however often (an operation's own records, keyed by it), where a put that finds its item already
 * there changes nothing, and DynamoDB streams no record for a write that changes nothing.
 */
export async function putItems(deps: TableDeps & TransactOptions, items: readonly Item[]): Promise<void> {
  await untilProcessed(deps, items, BATCH_WRITE_MAX_ITEMS, async (sent) => {
    const result = await deps.client.send(new BatchWriteCommand({ RequestItems: { [deps.table]: sent.map((item) => ({ PutRequest: { Item: item } })) } }));
    return (result.UnprocessedItems?.[deps.table] ?? []).flatMap((write) => (write.PutRequest?.Item ? [write.PutRequest.Item] : []));
  });
}

/**
 * A batch operation: `send` at most `size` of what is pending at a time, and send again, first,
 * what it answers unprocessed. An answer with something unprocessed counts as a failed attempt of
 * the one retry policy, as does a throttled or lost send; 503 `service_unavailable` when they run out.
 */
async function untilProcessed<T>(deps: TransactOptions, all: readonly T[], size: number, send: (batch: T[]) => Promise<T[]>): Promise<void> {
  let pending: T[] = [...all];
  await sendRetried(deps, async () => {
    while (pending.length > 0) {
      const batch = pending.slice(0, size);
      const unprocessed = await send(batch);
      pending = [...unprocessed, ...pending.slice(batch.length)];
      if (unprocessed.length > 0) throw new Unprocessed();
    }
  });
}

/** A batch answered with keys or items unprocessed (DynamoDB's throttling of a batch). */
class Unprocessed extends Error {
  override readonly name = 'Unprocessed';
}

/** An update expression on one item, under a condition when given. */
export interface Update extends Expression {
  expression: string;
  condition?: string;
}

/**
 * One update, under a condition when given; answers the attributes `returnValues` asks for. The
 * update also sets `WRITE_ID` to an id of this call, and a send after a lost answer adds the
 * condition that the item does not carry it yet: when the lost attempt was applied, that send's
 * condition fails, the item (ALL_OLD) shows this call's id, and the update succeeded once (see "A
 * write sent again after a lost answer" above; `ALL_NEW` and `UPDATED_NEW` then answer the item
 * as it is, every attribute).
 */
export async function updateItem(
  deps: TableDeps & TransactOptions,
  key: { pk: string; sk: string },
  update: Update & { returnValues?: 'ALL_NEW' | 'UPDATED_NEW'; returnOldOnConditionFailure?: boolean },
): Promise<Item | undefined> {
  const writeId = randomUUID();
  const input = updateInput(deps.table, key, update);
  let lostBefore = false;
  return sendRetried(deps, async () => {
    const recognise = lostBefore;
    try {
      const result = await deps.client.send(
        new UpdateCommand({
          ...input,
          UpdateExpression: withWriteId(update.expression),
          ConditionExpression: recognise ? [update.condition, NOT_WRITTEN_YET].filter(Boolean).map((condition) => `(${condition})`).join(' AND ') : update.condition,
          ExpressionAttributeNames: { ...update.names, [WRITE_ID_NAME]: WRITE_ID },
          ExpressionAttributeValues: { ...update.values, [WRITE_ID_VALUE]: writeId },
          ReturnValues: update.returnValues,
          ReturnValuesOnConditionCheckFailure: recognise || update.returnOldOnConditionFailure ? 'ALL_OLD' : undefined,
        }),
      );
      return withoutWriteId(result.Attributes);
    } catch (error) {
      if (recognise && isConditionalCheckFailed(error)) {
        const stored = itemOfFailure(error);
        if (stored?.[WRITE_ID] === writeId) return update.returnValues ? withoutWriteId(stored) : undefined;
      }
      lostBefore ||= transientAwsFailure(error) === 'lost';
      throw error;
    }
  });
}

/**
 * The attribute an `updateItem` leaves its call's id in (above). The store's reads never return
 * it (`withoutWriteId`); a transaction's put of the whole item drops it.
 */
export const WRITE_ID = 'store_write_id';
const WRITE_ID_NAME = '#store_write_id';
const WRITE_ID_VALUE = ':store_write_id';
const NOT_WRITTEN_YET = `attribute_not_exists(${WRITE_ID_NAME}) OR ${WRITE_ID_NAME} <> ${WRITE_ID_VALUE}`;

/**
 * The SET keyword of an update expression. SET is a reserved word, never an attribute's literal
 * name, so a SET that is not part of a placeholder (`#set`, `:set`) or of a longer name is the clause's.
 */
const SET_CLAUSE = /(?<![#:\w])SET\s+/i;

/** The update expression with `SET WRITE_ID = <this call's id>` added to its SET clause, or as one. */
const withWriteId = (expression: string): string => {
  const assignment = `${WRITE_ID_NAME} = ${WRITE_ID_VALUE}`;
  return SET_CLAUSE.test(expression) ? expression.replace(SET_CLAUSE, (keyword) => `${keyword}${assignment}, `) : `SET ${assignment} ${expression}`;
};

/** An item as the store answers it: without the update's write id (in place; an item read is the store's own copy). */
function withoutWriteId<T extends Item | undefined>(item: T): T {
  if (item && WRITE_ID in item) delete item[WRITE_ID];
  return item;
}

/** The item a failed condition's answer carries (ALL_OLD), in native values. */
function itemOfFailure(error: unknown): Item | undefined {
  const stored = (error as { Item?: Record<string, unknown> }).Item;
  return stored ? unmarshall(stored as never) : undefined;
}

/**
 * Whether the stored item is the item a put sent: equal values, attributes the marshaller drops
 * (undefined) ignored; numbers, strings, booleans, null, lists, maps, sets and binary compared by value.
 */
function sameItem(stored: Item | undefined, sent: Item): boolean {
  return stored !== undefined && isDeepStrictEqual(comparable(stored), comparable(sent));
}

const comparable = (value: unknown): unknown => {
  if (value instanceof Set) return new Set([...value].map(comparable));
  if (value instanceof Uint8Array) return Buffer.from(value);
  // DynamoDB stores -0 as 0.
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.filter((entry) => entry !== undefined).map(comparable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).flatMap(([name, entry]) => (entry === undefined ? [] : [[name, comparable(entry)]])));
  }
  return value;
};

/** The same update as one action of a `transact` (the item changes with the others or not at all). */
export const updateAction = (table: string, key: { pk: string; sk: string }, update: Update): TransactItem => ({ Update: updateInput(table, key, update) });

const updateInput = (table: string, key: { pk: string; sk: string }, update: Update) => ({
  TableName: table,
  Key: key,
  UpdateExpression: update.expression,
  ConditionExpression: update.condition,
  ExpressionAttributeNames: update.names,
  ExpressionAttributeValues: update.values,
});

export type Index = 'gsi1' | 'gsi2' | 'gsi3';

export interface PageQuery {
  /** Absent: the table's own key. */
  index?: Index;
  partition: string;
  cursor: string | undefined;
  limit: number;
  /** Newest first (ids are UUIDv7) unless false. */
  descending?: boolean;
  /** A sort key condition besides the partition, e.g. `#sk < :before` (names and values merged below). */
  sortKey?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> };
  filter?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> };
  /**
   * With a filter, the most items one request may evaluate: a rare match must not make one request
   * read a whole partition. A page that stops early has fewer items and a next_cursor.
   */
  scanBudget?: number;
  /** The code a cursor of another listing answers (the ledger's catalogue says `invalid`). */
  invalidCode?: 'invalid_request' | 'invalid';
  /** Strongly consistent (the table's own key only; an index is always eventually consistent). */
  consistent?: boolean;
  /** A listing's `created_after`/`created_before`: a filter on the items' `created_at` (a scan budget applies). */
  created?: CreatedRange;
}

/**
 * Exclusive bounds on an item's `created_at`, as a listing's query names them (Stripe's `gt`/`lt`).
 * ISO 8601 date-times with any offset; compared as instants (items carry `toISOString()`).
 */
export interface CreatedRange {
  created_after?: string;
  created_before?: string;
}

/** The most items one page under a created range evaluates: a narrow range must not read a whole partition. */
export const CREATED_SCAN_BUDGET = 1000;

/** `filter` and the created range together (AND); `filter` itself when the range names no bound. */
export function withCreatedRange(filter: PageQuery['filter'], range: CreatedRange | undefined): PageQuery['filter'] {
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  if (range?.created_after !== undefined) {
    conditions.push('#created_at > :created_after');
    values[':created_after'] = new Date(range.created_after).toISOString();
  }
  if (range?.created_before !== undefined) {
    conditions.push('#created_at < :created_before');
    values[':created_before'] = new Date(range.created_before).toISOString();
  }
  if (conditions.length === 0) return filter;
  return {
    expression: [...(filter ? [`(${filter.expression})`] : []), ...conditions].join(' AND '),
    names: { ...filter?.names, '#created_at': 'created_at' },
    values: { ...filter?.values, ...values },
  };
}

const hasCreatedBound = (range: CreatedRange | undefined): boolean => range?.created_after !== undefined || range?.created_before !== undefined;

/**
 * One page of a partition, newest first. The cursor is the key the previous page ended at, bound
 * to this index and partition (shared/http/cursor.ts): one of another listing or owner is refused,
 * and so is a forged position DynamoDB would not start from (a key outside the sort condition),
 * never a 500.
 */
export async function queryPage(deps: TableDeps & TransactOptions, query: PageQuery): Promise<{ items: Item[]; next_cursor: string | null }> {
  const pkName = query.index ? `${query.index}pk` : 'pk';
  const keyNames = query.index ? ['pk', 'sk', pkName, `${query.index}sk`] : ['pk', 'sk'];
  const code = query.invalidCode ?? 'invalid_request';
  const binding = { listing: query.index ?? 'table', owner: query.partition };
  let start: Item | undefined;
  if (query.cursor !== undefined) {
    start = decodeCursor(query.cursor, binding, keyNames, code);
    if (start[pkName] !== query.partition) throw unknownCursor(code);
  }
  const filter = withCreatedRange(query.filter, query.created);
  const items: Item[] = [];
  let budget = query.scanBudget ?? (hasCreatedBound(query.created) ? CREATED_SCAN_BUDGET : Number.POSITIVE_INFINITY);
  do {
    // Never evaluate more than can be returned, so the key DynamoDB stops at is the page's end.
    const pageLimit = Math.max(1, Math.min(query.limit - items.length, budget));
    const result = await sendQuery(deps, start !== undefined, code, {
        TableName: deps.table,
        IndexName: query.index,
        KeyConditionExpression: query.sortKey ? `#pk = :pk AND ${query.sortKey.expression}` : '#pk = :pk',
        ExpressionAttributeNames: { '#pk': pkName, ...query.sortKey?.names, ...filter?.names },
        ExpressionAttributeValues: { ':pk': query.partition, ...query.sortKey?.values, ...filter?.values },
        FilterExpression: filter?.expression,
        ScanIndexForward: query.descending === false,
        Limit: pageLimit,
        ExclusiveStartKey: start,
        ConsistentRead: query.consistent,
      });
    items.push(...(result.Items ?? []).map(withoutWriteId));
    budget -= result.ScannedCount ?? pageLimit;
    start = result.LastEvaluatedKey;
  } while (filter && start && items.length < query.limit && budget > 0);
  return { items, next_cursor: start ? encodeCursor(binding, start) : null };
}

/** A query from a client's position: DynamoDB's refusal of that position is the cursor's fault. */
async function sendQuery(deps: TableDeps & TransactOptions, fromCursor: boolean, code: 'invalid_request' | 'invalid', input: QueryCommandInput) {
  try {
    return await sendRetried(deps, () => deps.client.send(new QueryCommand(input)));
  } catch (error) {
    if (fromCursor && (error as { name?: string }).name === 'ValidationException') throw unknownCursor(code);
    throw error;
  }
}

/**
 * One request's worth of a partition between two sort keys (inclusive), newest first unless
 * `descending` is false, with the sort key value DynamoDB stopped at when there may be more. For
 * listings that page over several partitions at once (./merged-pages.ts).
 */
export async function queryRange(
  deps: TableDeps & TransactOptions,
  query: { index?: Index; partition: string; from: string; to: string; limit: number; descending?: boolean; consistent?: boolean; filter?: PageQuery['filter'] },
): Promise<{ items: Item[]; stoppedAt: string | undefined }> {
  const [pk, sk] = query.index ? [`${query.index}pk`, `${query.index}sk`] : ['pk', 'sk'];
  const result = await sendRetried(deps, () =>
    deps.client.send(
    new QueryCommand({
      TableName: deps.table,
      IndexName: query.index,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': pk, '#sk': sk, ...query.filter?.names },
      ExpressionAttributeValues: { ':pk': query.partition, ':from': query.from, ':to': query.to, ...query.filter?.values },
      FilterExpression: query.filter?.expression,
      ScanIndexForward: query.descending === false,
      Limit: query.limit,
      ConsistentRead: query.consistent,
    }),
    ),
  );
  const stopped = result.LastEvaluatedKey?.[sk];
  return { items: (result.Items ?? []).map(withoutWriteId), stoppedAt: stopped === undefined ? undefined : String(stopped) };
}

/**
 * Every item a query matches, page after page, as they arrive. For workers reading due work and
 * for partitions bounded by design (an endpoint list, a consumer's ledgers): never a listing a
 * client pages through (that is `queryPage`).
 */
export async function* queryAll(deps: TableDeps & TransactOptions, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): AsyncGenerator<Item> {
  let start: Item | undefined;
  do {
    const from = start;
    const page = await sendRetried(deps, () => deps.client.send(new QueryCommand({ ...input, TableName: deps.table, ExclusiveStartKey: from })));
    for (const item of page.Items ?? []) yield withoutWriteId(item);
    start = page.LastEvaluatedKey;
  } while (start);
}

export const isConditionalCheckFailed = (error: unknown): boolean =>
  (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';

export interface ConditionFailure {
  /** Index of the item whose condition failed. */
  index: number;
  /** The item as it was (ALL_OLD), when the item asked for it. */
  item: Item | undefined;
}

/** The items of a TransactWriteItems whose conditions failed; the caller knows what each meant. */
export class ConditionsFailed extends Error {
  constructor(readonly failures: readonly ConditionFailure[]) {
    super(`transaction conditions failed at items ${failures.map((f) => f.index).join(', ')}`);
    this.name = 'ConditionsFailed';
  }

  get indexes(): number[] {
    return this.failures.map((failure) => failure.index);
  }
}

/** A write set larger than one transaction may hold; the caller says what that means in its API. */
export class TransactionTooLarge extends Error {
  constructor(readonly size: number) {
    super(`${size} writes; one transaction holds at most ${MAX_TRANSACT_ITEMS}`);
    this.name = 'TransactionTooLarge';
  }
}

/** DynamoDB's own limit on one transaction. */
export const MAX_TRANSACT_ITEMS = 100;
/** Sends of one request at most, the first included (the one retry policy's, shared/kernel/retry.ts). */
export const TRANSACT_ATTEMPTS = POLICIES.dynamodb.attempts;

export interface TransactOptions extends Pick<RetryTiming, 'sleep'> {
  /** The retries' clock and jitter (tests); the sleep is the one most tests replace. */
  retryTiming?: Omit<RetryTiming, 'sleep'>;
  /**
   * No attempt starts later than this many ms after the call: for a caller whose correctness
   * needs its write committed within a bounded time or not at all (the ledger's closed periods).
   * The request's own deadline applies besides, whichever comes first.
   */
  deadlineMs?: number;
}

/**
 * One TransactWriteItems with the retries DynamoDB asks for. A cancellation caused only by
 * another transaction on the same items (`TransactionConflict`) or by item-level throttling wrote
 * nothing, so it is sent again, under a new `ClientRequestToken`; a send throttled or lost as a
 * whole (outcome unknown) is sent again under the same token, which DynamoDB applies at most once
 * (a still running one answers TransactionInProgressException, itself tried again). A cancellation
 * with a failed condition is thrown as `ConditionsFailed` and never retried: the condition is the
 * answer. All under the one retry policy (full-jitter backoff, TRANSACT_ATTEMPTS sends, the
 * request's deadline), then 503 `service_unavailable`.
 */
export async function transact(deps: Pick<TableDeps, 'client'> & TransactOptions, items: TransactItem[], options: TransactOptions = {}): Promise<{ attempts: number }> {
  if (items.length > MAX_TRANSACT_ITEMS) throw new TransactionTooLarge(items.length);
  let token = randomUUID();
  const timing = { ...deps, ...options };
  return sendRetried(timing, async (attempt) => {
    try {
      await deps.client.send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }));
      return { attempts: attempt };
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const failures = reasons.flatMap((reason, index) =>
        reason.Code === 'ConditionalCheckFailed' ? [{ index, item: reason.Item ? withoutWriteId(unmarshall(reason.Item as never)) : undefined }] : [],
      );
      if (failures.length > 0) throw new ConditionsFailed(failures);
      // Cancelled: nothing was written, so the next send is a new transaction.
      token = randomUUID();
      throw error;
    }
  });
}

/**
 * One request under the one retry policy: a failure `transientAwsFailure` names (throttled, lost,
 * a conflict with another transaction, a batch's unprocessed part) is sent again, anything else is
 * thrown as it came (a failed condition: `isConditionalCheckFailed`); 503 `service_unavailable`
 * when the attempts or the request's time run out.
 */
function sendRetried<T>(deps: TransactOptions, send: (attempt: number) => Promise<T>): Promise<T> {
  const timing: RetryTiming = { ...deps.retryTiming, sleep: deps.sleep };
  const now = timing.now ?? (() => performance.now());
  return retrying(POLICIES.dynamodb, send, {
    retryable: (error) => error instanceof Unprocessed || transientAwsFailure(error) !== undefined,
    overloaded: (error) => error instanceof Unprocessed || transientAwsFailure(error) === 'throttled' || transientAwsFailure(error) === 'lost',
    exhausted: (error) => (transientAwsFailure(error) === 'lost' ? lost() : busy()),
    deadlineAt: deps.deadlineMs === undefined ? undefined : now() + deps.deadlineMs,
    timing,
  });
}

const busy = () =>
  new AppError('service_unavailable', 'The table is busy with concurrent requests; retry the request (with the same Idempotency-Key, if it has one).');

// The database never answered: the outcome is unknown, so the client retries (with its key). Not a 500: nothing is wrong with the request or the code.
const lost = () => new AppError('service_unavailable', 'The database did not answer in time; retry the request (with the same Idempotency-Key, if it has one).');

function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TransactionCanceledException') return (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  return undefined;
}
