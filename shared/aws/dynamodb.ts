import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandOutput,
  type GetCommandOutput,
  type PutCommandOutput,
  type QueryCommandOutput,
  type TransactWriteCommandInput,
  type TransactWriteCommandOutput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { config } from '../kernel/config';
import { DYNAMODB_SDK_ATTEMPTS, sdkClientConfig, type SdkCredentials } from './clients';

/**
 * The DynamoDB document client: @aws-sdk/lib-dynamodb over @aws-sdk/client-dynamodb (native values
 * in, native values out), with the commands the platform sends. Services never import this: they
 * take a `DocumentClient` as a parameter (STYLE.md: clients injected), and only ./store.ts sends
 * commands (lint refuses the command classes anywhere else in shared/). The retry split between
 * the SDK and the store is in ./clients.ts.
 */

export { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand };

/**
 * Native values in, native values out, as lib-dynamodb's defaults plus `removeUndefinedValues` and
 * `convertClassInstanceToMap`: a client's map with a key named `constructor` (metadata, say) looks
 * like a class instance to the marshaller, which would otherwise throw on it. The price: a real
 * class instance (a Date) would be stored as a map of its enumerable fields, so items hold ISO
 * strings and numbers, never Dates (every writer already does; the tests read items back).
 */
const TRANSLATE = {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false, convertClassInstanceToMap: true },
  unmarshallOptions: { wrapNumbers: false },
} as const;

export type DocumentCommand = GetCommand | PutCommand | UpdateCommand | QueryCommand | BatchGetCommand | BatchWriteCommand | TransactWriteCommand;

/** What a command answers (lib-dynamodb's output type of that command). */
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
 * Narrower than DynamoDBDocumentClient (no callbacks, no other commands), so tests wrap it to
 * inject failures.
 */
export interface DocumentClient {
  send<C extends DocumentCommand>(command: C): Promise<OutputOf<C>>;
}

/** The table a command sends to (a batch or transaction: its first; ours never span two databases). */
function tableOf(command: DocumentCommand): string {
  const input = command.input as { TableName?: string; RequestItems?: Record<string, unknown>; TransactItems?: Record<string, { TableName?: string } | undefined>[] };
  if (input.TableName) return input.TableName;
  if (input.RequestItems) return Object.keys(input.RequestItems)[0] ?? '';
  return String(Object.values(input.TransactItems?.[0] ?? {}).find((action) => action !== undefined)?.TableName ?? '');
}

/** One SDK document client, or one per DynamoDB Local database, found by the command's table. */
class SdkDocumentClient implements DocumentClient {
  constructor(private readonly clients: DynamoDBDocumentClient | ((table: string) => DynamoDBDocumentClient)) {}

  async send<C extends DocumentCommand>(command: C): Promise<OutputOf<C>> {
    const client = typeof this.clients === 'function' ? this.clients(tableOf(command)) : this.clients;
    // Failures go to the store as the SDK threw them: it retries what shared/kernel/retry.ts names, then answers 503.
    return (await client.send(command as never)) as OutputOf<C>;
  }
}

/** The document client over one SDK DynamoDB client (its retries, credentials and endpoint). */
export const documentClientOf = (client: DynamoDBClient): DocumentClient => new SdkDocumentClient(DynamoDBDocumentClient.from(client, TRANSLATE));

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
  new DynamoDBClient(sdkClientConfig({ ...options, endpoint: options.endpoint ?? config.DYNAMODB_ENDPOINT, maxAttempts: options.maxAttempts ?? DYNAMODB_SDK_ATTEMPTS, retryMode: options.maxAttempts === undefined ? 'standard' : 'adaptive' }));

/**
 * The document client of a Lambda container (its composition root calls this once, on first use);
 * on DynamoDB Local (an endpoint given or configured, no credentials: the embedded platform,
 * tests and scripts) one that reaches each table in its own database.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DocumentClient {
  const endpoint = options.endpoint ?? config.DYNAMODB_ENDPOINT;
  if (!(options.localDatabases ?? (endpoint !== undefined && options.credentials === undefined))) return documentClientOf(dynamoDbClient(options));
  // One SDK client per database, found by table name (no name parsed per call).
  const byDatabase = new Map<string, DynamoDBDocumentClient>();
  const byTable = new Map<string, DynamoDBDocumentClient>();
  return new SdkDocumentClient((table) => {
    let client = byTable.get(table);
    if (!client) {
      const database = localDatabaseOf(table);
      client = byDatabase.get(database) ?? DynamoDBDocumentClient.from(dynamoDbClient({ ...options, endpoint, credentials: databaseCredentials(database) }), TRANSLATE);
      byDatabase.set(database, client);
      byTable.set(table, client);
    }
    return client;
  });
}

/** One item of a TransactWriteItems, in document-client form. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
