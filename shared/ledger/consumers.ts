import type { DocumentClient } from '../aws/dynamodb';
import { ConditionsFailed, getItem as storeGet, isConditionalCheckFailed, queryAll, transact, updateItem, type TableDeps } from '../aws/store';
import type { Clock } from '../kernel/clock';
import { AppError } from '../kernel/errors';
import type { IdGenerator } from '../kernel/ids';

/**
 * Ledger consumers: the authorization to call the ledger API. A consumer pairs a unique name (for
 * people) with the unique OIDC `sub` its access tokens carry (for the verifier). Only an operator
 * with database access creates one (scripts/ledger-consumers.ts), never the API, because creating
 * one is the authorization itself (spec part 1, "Ledger deployment facts").
 *
 * Items in the LedgerTable (the ledger service reads this layout; docs/ledger-auth.md):
 *   CONSUMER#<id>        / CONSUMER       the consumer; gsi1 CONSUMERS / <id> lists them in creation order
 *   CONSUMER_SUB#<sub>   / CONSUMER_SUB   uniqueness of sub, and the token -> consumer lookup
 *   CONSUMER_NAME#<name> / CONSUMER_NAME  uniqueness of name, and the operator's lookup
 * The three are written in one transaction, so a consumer never exists without both guards.
 */

export interface Consumer {
  id: string;
  name: string;
  sub: string;
  /** Blocked consumers may still post but may not read the event feed (event_feed_blocked). */
  feedBlocked: boolean;
  createdAt: string;
}

export interface ConsumerInput {
  name: string;
  sub: string;
}

export const consumerKeys = {
  consumer: (id: string) => ({ pk: `CONSUMER#${id}`, sk: 'CONSUMER' }),
  bySub: (sub: string) => ({ pk: `CONSUMER_SUB#${sub}`, sk: 'CONSUMER_SUB' }),
  byName: (name: string) => ({ pk: `CONSUMER_NAME#${name}`, sk: 'CONSUMER_NAME' }),
  /** gsi1 partition holding every consumer. */
  listPartition: 'CONSUMERS',
} as const;

const NAME_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;
/** OIDC Core: `sub` is at most 255 ASCII characters; spaces and control characters are refused. */
const SUB_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Consumers are few; a bound keeps a corrupted partition from paging forever. */
const MAX_LISTED = 10_000;

/** The name or sub is already paired otherwise (create: taken; ensure: a different pairing). */
export class ConsumerConflictError extends AppError {
  constructor(
    readonly field: 'name' | 'sub',
    detail: string,
  ) {
    super('conflict', detail);
    this.name = 'ConsumerConflictError';
  }
}

export class ConsumerNotFoundError extends AppError {
  constructor(name: string) {
    super('not_found', `No ledger consumer is named "${name}".`);
    this.name = 'ConsumerNotFoundError';
  }
}

export class InvalidConsumerError extends AppError {
  constructor(field: 'name' | 'sub', message: string) {
    super('invalid_request', `${field}: ${message}`, { errors: [{ field, message }] });
    this.name = 'InvalidConsumerError';
  }
}

export const isValidConsumerName = (name: string): boolean => NAME_PATTERN.test(name);
export const isValidConsumerSub = (sub: string): boolean => SUB_PATTERN.test(sub);

export interface ConsumerStore {
  /** Throws InvalidConsumerError, or ConsumerConflictError when the name or the sub is taken. */
  createConsumer(input: ConsumerInput): Promise<Consumer>;
  /**
   * Idempotent create: the existing consumer when exactly this name and sub are paired.
   * Throws InvalidConsumerError, or ConsumerConflictError when the name or the sub belongs to another pairing.
   */
  ensureConsumer(input: ConsumerInput): Promise<{ consumer: Consumer; created: boolean }>;
  /** Every consumer, oldest first (eventually consistent: a GSI). */
  listConsumers(): Promise<Consumer[]>;
  /** Strongly consistent; undefined for an unknown or malformed sub. */
  findConsumerBySub(sub: string): Promise<Consumer | undefined>;
  /** Strongly consistent; undefined for an unknown or malformed name. */
  findConsumerByName(name: string): Promise<Consumer | undefined>;
  /** Throws ConsumerNotFoundError. */
  setFeedBlocked(name: string, blocked: boolean): Promise<Consumer>;
}

export function createConsumerStore(
  client: DocumentClient,
  tableName: string,
  clock: Clock,
  ids: IdGenerator,
  options: { sleep?: (ms: number) => Promise<void> } = {},
): ConsumerStore {
  const deps: TableDeps & { sleep?: (ms: number) => Promise<void> } = { client, table: tableName, sleep: options.sleep };
  const getItem = (key: { pk: string; sk: string }) => storeGet(deps, key);

  const getConsumer = async (id: string): Promise<Consumer | undefined> => {
    const item = await getItem(consumerKeys.consumer(id));
    return item ? toConsumer(item) : undefined;
  };

  /** The consumer a guard item (sub or name) points to. */
  const viaGuard = async (key: { pk: string; sk: string }): Promise<Consumer | undefined> => {
    const guard = await getItem(key);
    return typeof guard?.consumer_id === 'string' ? getConsumer(guard.consumer_id) : undefined;
  };

  const createConsumer = async (input: ConsumerInput): Promise<Consumer> => {
    validate(input);
    const consumer: Consumer = { id: ids(), name: input.name, sub: input.sub, feedBlocked: false, createdAt: clock.now().toISOString() };
    const notExists = { ConditionExpression: 'attribute_not_exists(pk)' };
    try {
      await transact(deps, [
        {
          Put: {
            TableName: tableName,
            Item: {
              ...consumerKeys.consumer(consumer.id),
              entity: 'consumer',
              id: consumer.id,
              name: consumer.name,
              sub: consumer.sub,
              feed_blocked: consumer.feedBlocked,
              created_at: consumer.createdAt,
              gsi1pk: consumerKeys.listPartition,
              gsi1sk: consumer.id,
            },
            ...notExists,
          },
        },
        { Put: { TableName: tableName, Item: { ...consumerKeys.bySub(consumer.sub), consumer_id: consumer.id }, ...notExists } },
        { Put: { TableName: tableName, Item: { ...consumerKeys.byName(consumer.name), consumer_id: consumer.id }, ...notExists } },
      ]);
    } catch (error) {
      if (error instanceof ConditionsFailed) {
        // Items in order: [consumer, sub, name].
        if (error.indexes.includes(2)) throw new ConsumerConflictError('name', `A ledger consumer named "${input.name}" already exists.`);
        if (error.indexes.includes(1)) throw new ConsumerConflictError('sub', `A ledger consumer with sub "${input.sub}" already exists.`);
      }
      throw error;
    }
    return consumer;
  };

  const ensureConsumer = async (input: ConsumerInput): Promise<{ consumer: Consumer; created: boolean }> => {
    validate(input);
    // Two rounds: a concurrent ensure of the same pairing can win the create between our read and write.
    for (let round = 0; ; round += 1) {
      const [byName, bySub] = await Promise.all([viaGuard(consumerKeys.byName(input.name)), viaGuard(consumerKeys.bySub(input.sub))]);
      if (byName && byName.sub !== input.sub) {
        throw new ConsumerConflictError('name', `The ledger consumer "${input.name}" is paired with sub "${byName.sub}", not "${input.sub}".`);
      }
      if (bySub && bySub.name !== input.name) {
        throw new ConsumerConflictError('sub', `The sub "${input.sub}" belongs to the ledger consumer "${bySub.name}", not "${input.name}".`);
      }
      if (byName) return { consumer: byName, created: false };
      try {
        return { consumer: await createConsumer(input), created: true };
      } catch (error) {
        if (!(error instanceof ConsumerConflictError) || round > 0) throw error;
      }
    }
  };

  const listConsumers = async (): Promise<Consumer[]> => {
    const consumers: Consumer[] = [];
    const items = queryAll(deps, { IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :list', ExpressionAttributeValues: { ':list': consumerKeys.listPartition } });
    for await (const item of items) {
      consumers.push(toConsumer(item));
      if (consumers.length >= MAX_LISTED) break;
    }
    return consumers;
  };

  const findConsumerBySub = async (sub: string): Promise<Consumer | undefined> =>
    // A malformed sub cannot belong to a consumer; refusing it here spares the table odd keys.
    isValidConsumerSub(sub) ? viaGuard(consumerKeys.bySub(sub)) : undefined;

  const findConsumerByName = async (name: string): Promise<Consumer | undefined> =>
    isValidConsumerName(name) ? viaGuard(consumerKeys.byName(name)) : undefined;

  const setFeedBlocked = async (name: string, blocked: boolean): Promise<Consumer> => {
    const guard = isValidConsumerName(name) ? await getItem(consumerKeys.byName(name)) : undefined;
    if (typeof guard?.consumer_id !== 'string') throw new ConsumerNotFoundError(name);
    try {
      const updated = await updateItem(deps, consumerKeys.consumer(guard.consumer_id), {
        expression: 'SET feed_blocked = :blocked',
        condition: 'attribute_exists(pk)',
        values: { ':blocked': blocked },
        returnValues: 'ALL_NEW',
      });
      return toConsumer(updated ?? {});
    } catch (error) {
      if (isConditionalCheckFailed(error)) throw new ConsumerNotFoundError(name);
      throw error;
    }
  };

  return { createConsumer, ensureConsumer, listConsumers, findConsumerBySub, findConsumerByName, setFeedBlocked };
}

function validate(input: ConsumerInput): void {
  if (typeof input.name !== 'string' || !NAME_PATTERN.test(input.name)) {
    throw new InvalidConsumerError('name', 'must be 1 to 100 characters of A-Z, a-z, 0-9, ".", "_" or "-"');
  }
  if (typeof input.sub !== 'string' || !SUB_PATTERN.test(input.sub)) {
    throw new InvalidConsumerError('sub', 'must be 1 to 255 printable ASCII characters without spaces');
  }
}

function toConsumer(item: Record<string, unknown>): Consumer {
  const { id, name, sub, feed_blocked: feedBlocked, created_at: createdAt } = item;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof sub !== 'string' || typeof createdAt !== 'string') {
    throw new Error(`malformed consumer item ${String(item.pk)}`);
  }
  return { id, name, sub, feedBlocked: feedBlocked === true, createdAt };
}
