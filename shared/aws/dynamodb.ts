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
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { config } from '../kernel/config';
import { AwsJsonClient, idempotencyToken, type CredentialsProvider } from './aws-json';

/**
 * The DynamoDB document client: the operations of @aws-sdk/lib-dynamodb the platform uses, with
 * the same command names, inputs and outputs (native values in, native values out), sent over the
 * AWS JSON protocol by ./aws-json.ts instead of the SDK. Services never import this: they take a
 * client as a parameter (STYLE.md: clients injected), and only ./store.ts sends commands.
 */

/**
 * Native values in, native values out, as lib-dynamodb's defaults plus `removeUndefinedValues` and
 * `convertClassInstanceToMap`: a client's map with a key named `constructor` (metadata, say) looks
 * like a class instance to the marshaller, which would otherwise throw on it. The price: a real
 * class instance (a Date) would be stored as a map of its enumerable fields, so items hold ISO
 * strings and numbers, never Dates (every writer already does; the tests read items back).
 */
const MARSHALL = { removeUndefinedValues: true, convertEmptyValues: false, convertClassInstanceToMap: true } as const;

type Native = Record<string, unknown>;
type Wire = Record<string, unknown>;

const toWire = (item: Native | undefined): Wire | undefined => (item === undefined ? undefined : (marshall(item, MARSHALL) as Wire));
const fromWire = (item: unknown): Native | undefined => (item === undefined || item === null ? undefined : unmarshall(item as never));
const fromWireList = (items: unknown): Native[] | undefined => (Array.isArray(items) ? items.map((item) => unmarshall(item as never)) : undefined);

/** Marshals the native fields of one request or transaction part (Key, Item, ExpressionAttributeValues, ExclusiveStartKey). */
function wireOf<T extends object>(input: T): Wire {
  const out: Wire = { ...(input as Wire) };
  for (const field of ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const) {
    if (field in out && out[field] !== undefined) out[field] = toWire(out[field] as Native);
  }
  return out;
}

abstract class Command<I, O> {
  declare readonly output: O;
  abstract readonly operation: string;
  constructor(readonly input: I) {}
  /** The table the command sends to (a batch or transaction: its first; ours never span two). */
  table(): string {
    return String((this.input as { TableName?: string }).TableName ?? '');
  }
  /** The JSON body DynamoDB takes. */
  abstract request(): Wire;
  /** The document answer from DynamoDB's. */
  abstract response(wire: Wire): O;
}

export class GetCommand extends Command<GetCommandInput, Pick<GetCommandOutput, 'Item' | 'ConsumedCapacity'>> {
  readonly operation = 'GetItem';
  request = () => wireOf(this.input);
  response = (wire: Wire) => ({ Item: fromWire(wire.Item), ConsumedCapacity: wire.ConsumedCapacity as never });
}

export class PutCommand extends Command<PutCommandInput, Pick<PutCommandOutput, 'Attributes' | 'ConsumedCapacity'>> {
  readonly operation = 'PutItem';
  request = () => wireOf(this.input);
  response = (wire: Wire) => ({ Attributes: fromWire(wire.Attributes), ConsumedCapacity: wire.ConsumedCapacity as never });
}

export class UpdateCommand extends Command<UpdateCommandInput, Pick<UpdateCommandOutput, 'Attributes' | 'ConsumedCapacity'>> {
  readonly operation = 'UpdateItem';
  request = () => wireOf(this.input);
  response = (wire: Wire) => ({ Attributes: fromWire(wire.Attributes), ConsumedCapacity: wire.ConsumedCapacity as never });
}

export class QueryCommand extends Command<QueryCommandInput, Pick<QueryCommandOutput, 'Items' | 'LastEvaluatedKey' | 'Count' | 'ScannedCount' | 'ConsumedCapacity'>> {
  readonly operation = 'Query';
  request = () => wireOf(this.input);
  response = (wire: Wire) => ({
    Items: fromWireList(wire.Items),
    LastEvaluatedKey: fromWire(wire.LastEvaluatedKey),
    Count: wire.Count as number | undefined,
    ScannedCount: wire.ScannedCount as number | undefined,
    ConsumedCapacity: wire.ConsumedCapacity as never,
  });
}

export class BatchGetCommand extends Command<BatchGetCommandInput, Pick<BatchGetCommandOutput, 'Responses' | 'UnprocessedKeys'>> {
  readonly operation = 'BatchGetItem';
  override table = () => Object.keys(this.input.RequestItems ?? {})[0] ?? '';
  request = () => ({
    ...this.input,
    RequestItems: Object.fromEntries(Object.entries(this.input.RequestItems ?? {}).map(([table, ask]) => [table, { ...ask, Keys: ask.Keys?.map((key) => toWire(key)) }])),
  });
  response = (wire: Wire) => {
    const responses = (wire.Responses ?? {}) as Record<string, unknown[]>;
    const unprocessed = (wire.UnprocessedKeys ?? {}) as Record<string, { Keys?: unknown[] } & Record<string, unknown>>;
    return {
      Responses: Object.fromEntries(Object.entries(responses).map(([table, items]) => [table, fromWireList(items) ?? []])),
      UnprocessedKeys: Object.fromEntries(Object.entries(unprocessed).map(([table, ask]) => [table, { ...ask, Keys: fromWireList(ask.Keys) }])),
    } as Pick<BatchGetCommandOutput, 'Responses' | 'UnprocessedKeys'>;
  };
}

type BatchWrites = Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>;

/** A batch's writes, each put's item and delete's key converted (native to wire, or back). */
const convertWrites = (writes: BatchWrites, convert: (value: never) => unknown): BatchWrites =>
  Object.fromEntries(
    Object.entries(writes).map(([table, list]) => [
      table,
      list.map((write) => (write.PutRequest ? { PutRequest: { Item: convert(write.PutRequest.Item as never) } } : { DeleteRequest: { Key: convert(write.DeleteRequest?.Key as never) } })),
    ]),
  );

export class BatchWriteCommand extends Command<BatchWriteCommandInput, Pick<BatchWriteCommandOutput, 'UnprocessedItems'>> {
  readonly operation = 'BatchWriteItem';
  override table = () => Object.keys(this.input.RequestItems ?? {})[0] ?? '';
  request = () => ({ ...this.input, RequestItems: convertWrites((this.input.RequestItems ?? {}) as BatchWrites, toWire) });
  response = (wire: Wire) => ({ UnprocessedItems: convertWrites((wire.UnprocessedItems ?? {}) as BatchWrites, fromWire) }) as Pick<BatchWriteCommandOutput, 'UnprocessedItems'>;
}

export class TransactWriteCommand extends Command<TransactWriteCommandInput, Pick<TransactWriteCommandOutput, 'ConsumedCapacity'>> {
  readonly operation = 'TransactWriteItems';
  override table = () => String(Object.values(this.input.TransactItems?.[0] ?? {})[0]?.TableName ?? '');
  /** One token per logical transaction, so a retry after a lost answer is not applied twice (DynamoDB's idempotent transactions). */
  private readonly token = this.input.ClientRequestToken ?? idempotencyToken();
  request = () => ({
    ...this.input,
    ClientRequestToken: this.token,
    TransactItems: (this.input.TransactItems ?? []).map((part) =>
      Object.fromEntries(Object.entries(part).map(([kind, action]) => [kind, action === undefined ? undefined : wireOf(action as object)])),
    ),
  });
  response = (wire: Wire) => ({ ConsumedCapacity: wire.ConsumedCapacity as never });
}

export type DocumentCommand = GetCommand | PutCommand | UpdateCommand | QueryCommand | BatchGetCommand | BatchWriteCommand | TransactWriteCommand;

/** The client services take (deps.client): `send` a command, get its document answer. Tests wrap it to inject failures. */
export interface DocumentClient {
  /** Not the SDK's DynamoDBDocumentClient, which takes commands of its own: the compiler tells them apart. */
  readonly protocol: 'aws-json';
  send<C extends DocumentCommand>(command: C): Promise<C['output']>;
}

/** The document client over the AWS JSON protocol: one JSON client, or one per table's database (DynamoDB Local). */
export class JsonDocumentClient implements DocumentClient {
  readonly protocol = 'aws-json' as const;
  constructor(private readonly json: AwsJsonClient | ((table: string) => AwsJsonClient)) {}

  async send<C extends DocumentCommand>(command: C): Promise<C['output']> {
    const json = typeof this.json === 'function' ? this.json(command.table()) : this.json;
    const wire = await json.call<Wire>(`DynamoDB_20120810.${command.operation}`, command.request());
    return command.response(wire) as C['output'];
  }
}

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
  /** Default: the environment's. Without them, a client on DynamoDB Local signs each call as its table's database (`localDatabaseOf`). */
  credentials?: CredentialsProvider;
  /** Attempts per call for throttling, 5xx and connection failures; transaction conflicts are the store's (./store.ts). */
  maxAttempts?: number;
}

/**
 * The document client of a Lambda container; on DynamoDB Local (an endpoint given or configured,
 * no credentials: the embedded platform, tests and scripts) one that reaches each table in its
 * own database.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DocumentClient {
  const endpoint = options.endpoint ?? config.DYNAMODB_ENDPOINT;
  const jsonClient = (credentials: CredentialsProvider | undefined) =>
    new AwsJsonClient({
      service: 'dynamodb',
      region: options.region ?? config.AWS_REGION,
      ...(endpoint ? { endpoint } : {}),
      ...(credentials ? { credentials } : {}),
      maxAttempts: options.maxAttempts ?? 3,
    });
  if (!endpoint || options.credentials) return new JsonDocumentClient(jsonClient(options.credentials));
  // One JSON client per database, found by table name (no name parsed per call).
  const byDatabase = new Map<string, AwsJsonClient>();
  const byTable = new Map<string, AwsJsonClient>();
  return new JsonDocumentClient((table) => {
    let json = byTable.get(table);
    if (!json) {
      const database = localDatabaseOf(table);
      const credentials = databaseCredentials(database);
      json = byDatabase.get(database) ?? jsonClient(() => credentials);
      byDatabase.set(database, json);
      byTable.set(table, json);
    }
    return json;
  });
}

/** One item of a TransactWriteItems, in document-client form. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
