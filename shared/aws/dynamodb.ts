import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand as QueryItemsCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
// The document client's shapes (native values in, native values out), the SDK's own types; its runtime is not used (below).
import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { config } from '../kernel/config';
import { DYNAMODB_SDK_ATTEMPTS, sdkClientConfig, type SdkCredentials } from './clients';

/**
 * The DynamoDB document client: native values in, native values out, over
 * @aws-sdk/client-dynamodb, with the commands the platform sends. Services never import this: they
 * take a `DocumentClient` as a parameter (STYLE.md: clients injected), and only ./store.ts sends
 * commands (lint refuses the command classes anywhere else in shared/). The retry split between
 * the SDK and the store is in ./clients.ts.
 *
 * The translation is @aws-sdk/util-dynamodb's `marshall` and `unmarshall` on the attributes each
 * command carries (items, keys, expression values; items, keys and pages answered), the nodes
 * @aws-sdk/lib-dynamodb translates, with its options below. Not lib-dynamodb itself: it refuses
 * the client's `cacheMiddleware`, which resolves a command's middleware stack once per client
 * instead of at every request, a quarter of a call's Node.js CPU (docs/decisions.md,
 * docs/performance.md "Throughput"). Its types stay the shapes the store speaks.
 */

/**
 * Native values in, as lib-dynamodb's defaults plus `removeUndefinedValues` and
 * `convertClassInstanceToMap`: a client's map with a key named `constructor` (metadata, say) looks
 * like a class instance to the marshaller, which would otherwise throw on it. The price: a real
 * class instance (a Date) would be stored as a map of its enumerable fields, so items hold ISO
 * strings and numbers, never Dates (every writer already does; the tests read items back).
 */
const MARSHALL = { removeUndefinedValues: true, convertEmptyValues: false, convertClassInstanceToMap: true } as const;
/** Native values out: numbers as numbers. */
const UNMARSHALL = { wrapNumbers: false } as const;

/** A command the store sends: its input in native values. */
abstract class DocumentCommandOf<I> {
  constructor(readonly input: I) {}
}
// Each class nominal (a private member of its own), so an update is never taken for a get by its shape.
export class GetCommand extends DocumentCommandOf<GetCommandInput> {
  declare private readonly get: never;
}
export class PutCommand extends DocumentCommandOf<PutCommandInput> {
  declare private readonly put: never;
}
export class UpdateCommand extends DocumentCommandOf<UpdateCommandInput> {
  declare private readonly update: never;
}
export class QueryCommand extends DocumentCommandOf<QueryCommandInput> {
  declare private readonly query: never;
}
export class BatchGetCommand extends DocumentCommandOf<BatchGetCommandInput> {
  declare private readonly batchGet: never;
}
export class BatchWriteCommand extends DocumentCommandOf<BatchWriteCommandInput> {
  declare private readonly batchWrite: never;
}
export class TransactWriteCommand extends DocumentCommandOf<TransactWriteCommandInput> {
  declare private readonly transactWrite: never;
}

export type { QueryCommandInput };

export type DocumentCommand = GetCommand | PutCommand | UpdateCommand | QueryCommand | BatchGetCommand | BatchWriteCommand | TransactWriteCommand;

/** What a command answers (the document client's output type of that command). */
export type OutputOf<C extends DocumentCommand> = C extends GetCommand
  ? GetCommandOutput
  : C extends PutCommand
    ? PutCommandOutput
    : C extends UpdateCommand
      ? UpdateCommandOutput
      : C extends QueryCommand
        ? QueryCommandOutput
        : C extends BatchGetCommand
          ? BatchGetCommandOutput
          : C extends BatchWriteCommand
            ? BatchWriteCommandOutput
            : TransactWriteCommandOutput;

/**
 * The client services take (deps.client): `send` one of the document commands, get its answer.
 * Narrower than an SDK client (no callbacks, no other commands), so tests wrap it to inject failures.
 */
export interface DocumentClient {
  send<C extends DocumentCommand>(command: C): Promise<OutputOf<C>>;
}

type NativeItem = Record<string, NativeAttributeValue>;
type WireItem = Record<string, AttributeValue>;

const toWire = (item: NativeItem): WireItem => marshall(item, MARSHALL);
const toNative = (item: WireItem): NativeItem => unmarshall(item, UNMARSHALL);
const mapValues = <A, B>(record: Record<string, A> | undefined, map: (value: A) => B): Record<string, B> | undefined =>
  record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([name, value]) => [name, map(value)]));

/** The fields of a request or answer that hold one item, key or map of expression values (lib-dynamodb's nodes). */
const ITEM_FIELDS = ['Item', 'Key', 'ExpressionAttributeValues', 'ExclusiveStartKey', 'Attributes', 'LastEvaluatedKey'] as const;
type ItemField = (typeof ITEM_FIELDS)[number];
/** `T` with its item fields in the other form. */
type Translated<T, To> = { [K in keyof T]: K extends ItemField ? (undefined extends T[K] ? To | undefined : To) : T[K] };

/** A request or answer with each item field present translated by `map`, every other field as it is. */
function translated<T extends object, From, To>(shape: T, map: (item: From) => To): Translated<T, To> {
  const copy = { ...shape } as Record<string, unknown>;
  for (const field of ITEM_FIELDS) if (copy[field] !== undefined) copy[field] = map(copy[field] as From);
  return copy as Translated<T, To>;
}
const wire = <T extends object>(input: T) => translated(input, toWire);
const native = <T extends object>(output: T) => translated(output, toNative);

/** One action of a transaction with its item, key and expression values marshalled. */
const transactAction = ({ Put, Update, Delete, ConditionCheck }: TransactItem): TransactWriteItem => ({
  Put: Put && wire(Put),
  Update: Update && wire(Update),
  Delete: Delete && wire(Delete),
  ConditionCheck: ConditionCheck && wire(ConditionCheck),
});

/** One write request of a batch, either way. */
type WriteRequestOf<T> = { PutRequest?: { Item: T }; DeleteRequest?: { Key: T } };
const writeRequest = <A, B>(request: WriteRequestOf<A>, map: (item: A) => B): WriteRequestOf<B> => ({
  ...(request.PutRequest ? { PutRequest: { Item: map(request.PutRequest.Item) } } : {}),
  ...(request.DeleteRequest ? { DeleteRequest: { Key: map(request.DeleteRequest.Key) } } : {}),
});

/**
 * Sends a document command through an SDK client: its attributes marshalled, the answer's
 * unmarshalled. Failures go to the store as the SDK threw them (a failed condition's `Item` and a
 * cancellation's reasons in wire form: the store reads them), and it retries what
 * shared/kernel/retry.ts names, then answers 503.
 */
export async function sendDocument<C extends DocumentCommand>(client: DynamoDBClient, command: C): Promise<OutputOf<C>> {
  return (await sendAny(client, command)) as OutputOf<C>;
}

async function sendAny(client: DynamoDBClient, command: DocumentCommand): Promise<unknown> {
  if (command instanceof GetCommand) return native(await client.send(new GetItemCommand(wire(command.input))));
  if (command instanceof PutCommand) return native(await client.send(new PutItemCommand(wire(command.input))));
  if (command instanceof UpdateCommand) return native(await client.send(new UpdateItemCommand(wire(command.input))));
  if (command instanceof QueryCommand) {
    const output = await client.send(new QueryItemsCommand(wire(command.input)));
    return { ...native(output), Items: output.Items?.map(toNative) };
  }
  if (command instanceof BatchGetCommand) {
    const { RequestItems, ...rest } = command.input;
    const output = await client.send(new BatchGetItemCommand({ ...rest, RequestItems: mapValues(RequestItems, (asked) => ({ ...asked, Keys: asked.Keys?.map(toWire) })) }));
    return {
      ...output,
      Responses: mapValues(output.Responses, (items) => items.map(toNative)),
      UnprocessedKeys: mapValues(output.UnprocessedKeys, (left) => ({ ...left, Keys: left.Keys?.map(toNative) })),
    };
  }
  if (command instanceof BatchWriteCommand) {
    const { RequestItems, ...rest } = command.input;
    const output = await client.send(new BatchWriteItemCommand({ ...rest, RequestItems: mapValues(RequestItems, (writes) => writes.map((write) => writeRequest(write as WriteRequestOf<NativeItem>, toWire))) }));
    return { ...output, UnprocessedItems: mapValues(output.UnprocessedItems, (writes) => writes.map((write) => writeRequest(write as WriteRequestOf<WireItem>, toNative))) };
  }
  const { TransactItems, ...rest } = command.input;
  return client.send(new TransactWriteItemsCommand({ ...rest, TransactItems: TransactItems?.map(transactAction) }));
}

/** The table a command sends to (a batch or transaction: its first; ours never span two databases). */
function tableOf(command: DocumentCommand): string {
  const input = command.input as { TableName?: string; RequestItems?: Record<string, unknown>; TransactItems?: Record<string, { TableName?: string } | undefined>[] };
  if (input.TableName) return input.TableName;
  if (input.RequestItems) return Object.keys(input.RequestItems)[0] ?? '';
  return String(Object.values(input.TransactItems?.[0] ?? {}).find((action) => action !== undefined)?.TableName ?? '');
}

/** One SDK DynamoDB client, or one per DynamoDB Local database, found by the command's table. */
class SdkDocumentClient implements DocumentClient {
  constructor(private readonly clients: DynamoDBClient | ((table: string) => DynamoDBClient)) {}

  send<C extends DocumentCommand>(command: C): Promise<OutputOf<C>> {
    return sendDocument(typeof this.clients === 'function' ? this.clients(tableOf(command)) : this.clients, command);
  }
}

/** The document client over one SDK DynamoDB client (its retries, credentials and endpoint). */
export const documentClientOf = (client: DynamoDBClient): DocumentClient => new SdkDocumentClient(client);

/**
 * The database a table lives in on DynamoDB Local, named after the table's kind: the last part of
 * its name (`wallet-local-LedgerTable` -> `LedgerTable`), letters and digits only.
 *
 * DynamoDB Local keeps one SQLite database per access key (started without `-sharedDb`), and
 * each database does all its reads and writes on one thread. With one database for every table,
 * the wallet's writes queued behind the ledger's transactions on that thread, a contention no two
 * AWS tables have. So a client on DynamoDB Local signs each call with its table's database as the
 * access key: the ledger's table is a database of its own, as the ledger's table in AWS is
 * reachable only by the ledger's functions.
 */
export function localDatabaseOf(table: string): string {
  const kind = table.split('-').pop()!.replace(/[^A-Za-z0-9]/g, '');
  return kind === '' ? 'local' : kind;
}

/** What a client signs with on DynamoDB Local to reach a database (it checks the key's shape, not a secret). */
export const databaseCredentials = (database: string) => ({ accessKeyId: database, secretAccessKey: 'local' });

/** What a client signs with on DynamoDB Local to reach `table`'s database. */
export const localDatabaseCredentials = (table: string) => databaseCredentials(localDatabaseOf(table));

export interface DocumentClientOptions {
  /** DynamoDB Local's address (the embedded platform, tests and scripts); default DYNAMODB_ENDPOINT, else AWS. */
  endpoint?: string;
  region?: string;
  /** Default: the SDK's chain. Without them, a client on DynamoDB Local signs each call as its table's database (`localDatabaseOf`). */
  credentials?: SdkCredentials;
  /** SDK attempts per request; default one: DynamoDB requests are retried by the store only (./clients.ts). */
  maxAttempts?: number;
  /** An attempt's time, ms (tests); default the platform's (./clients.ts: 3 s on AWS, more on DynamoDB Local). */
  requestTimeoutMs?: number;
  /**
   * Sign each call as its table's database (DynamoDB Local). Default: when an endpoint is given or
   * configured and no credentials are; an operator script aiming at another endpoint with the
   * SDK's credential chain says false.
   */
  localDatabases?: boolean;
}

/**
 * The SDK DynamoDB client of these options (the platform's settings, ./clients.ts): one send per
 * request, standard mode, the store retrying; an emulator of the embedded platform that sends
 * outside the store names its own `maxAttempts` and gets the SDK's adaptive retries.
 */
export const dynamoDbClient = (options: DocumentClientOptions = {}): DynamoDBClient =>
  new DynamoDBClient({
    ...sdkClientConfig({ ...options, endpoint: options.endpoint ?? config.DYNAMODB_ENDPOINT, maxAttempts: options.maxAttempts ?? DYNAMODB_SDK_ATTEMPTS, retryMode: options.maxAttempts === undefined ? 'standard' : 'adaptive' }),
    // Each command's middleware resolved once per client, not at every send (the top of this file).
    // A middleware added to the client's stack after its first send of a command is not seen by that command.
    cacheMiddleware: true,
  });

/**
 * The document client of a Lambda container (its composition root calls this once, on first use);
 * on DynamoDB Local (an endpoint given or configured, no credentials: the embedded platform,
 * tests and scripts) one that reaches each table in its own database.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DocumentClient {
  const endpoint = options.endpoint ?? config.DYNAMODB_ENDPOINT;
  if (!(options.localDatabases ?? (endpoint !== undefined && options.credentials === undefined))) return documentClientOf(dynamoDbClient(options));
  // One SDK client per database, found by table name (no name parsed per call).
  const byDatabase = new Map<string, DynamoDBClient>();
  const byTable = new Map<string, DynamoDBClient>();
  return new SdkDocumentClient((table) => {
    let client = byTable.get(table);
    if (!client) {
      const database = localDatabaseOf(table);
      client = byDatabase.get(database) ?? dynamoDbClient({ ...options, endpoint, credentials: databaseCredentials(database) });
      byDatabase.set(database, client);
      byTable.set(table, client);
    }
    return client;
  });
}

/** One item of a TransactWriteItems, in document-client form. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
