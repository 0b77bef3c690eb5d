import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_REGION } from '../../local/dynamodb';
import { ensureTables } from '../../local/tables';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  documentClientOf,
  dynamoDbClient,
  localDatabaseCredentials,
} from '../../shared/aws/dynamodb';
import { uuidv7 } from '../../shared/kernel/ids';
import { dynamoDbAnswer } from '../support/dynamodb-answers';

/**
 * The document client (shared/aws/dynamodb.ts) against DynamoDB Local: native values in and out
 * of every command the store sends, through util-dynamodb's translation on an SDK client that
 * resolves each command's middleware once (`cacheMiddleware`). Answers DynamoDB Local never gives
 * (unprocessed keys and items) are made below the SDK's deserializer, as bytes the service would
 * send, so the SDK parses them as it would the real service's.
 */

let table: string;
let sdk: DynamoDBClient;

beforeAll(async () => {
  table = (await ensureTables(inject('dynamodbEndpoint'), `d${uuidv7().replace(/-/g, '').slice(-12)}`)).wallet.name;
  sdk = dynamoDbClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: localDatabaseCredentials(table) });
});
afterAll(() => sdk?.destroy());

const keyOf = (name: string) => ({ pk: `DOC#${uuidv7()}`, sk: name });

/** Every kind of value an item of ours holds, and two the marshaller must be told about. */
const richItem = (key: { pk: string; sk: string }) => ({
  ...key,
  amount: 12_345,
  negative: -7,
  ratio: 0.25,
  name: 'naïve ✓',
  flag: false,
  nothing: null,
  list: [1, 'two', { three: 3 }],
  // A client's metadata may have a key named `constructor`: a plain map, not a class instance.
  metadata: { constructor: 'x', nested: { deep: ['a'] } },
  tags: new Set(['a', 'b']),
  bytes: new Uint8Array([1, 2, 3]),
  // Left out, not refused.
  absent: undefined,
});

describe('the document client over the SDK client', () => {
  it('puts and gets an item with every kind of value, numbers as numbers and undefined left out', async () => {
    const client = documentClientOf(sdk);
    const key = keyOf('RICH');
    await client.send(new PutCommand({ TableName: table, Item: richItem(key) }));
    const { Item } = await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    const { absent: _absent, ...expected } = richItem(key);
    expect(Item).toEqual(expected);
    expect(Item).not.toHaveProperty('absent');
    expect(typeof Item!.amount).toBe('number');
  });

  it('answers two commands of one kind each with its own answer (the cached middleware keeps no input)', async () => {
    const client = documentClientOf(sdk);
    const [first, second] = [keyOf('ONE'), keyOf('TWO')];
    await client.send(new PutCommand({ TableName: table, Item: { ...first, n: 1 } }));
    await client.send(new PutCommand({ TableName: table, Item: { ...second, n: 2 } }));
    const answers = await Promise.all([first, second, first].map((key) => client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))));
    expect(answers.map((answer) => answer.Item?.n)).toEqual([1, 2, 1]);
  });

  it('translates expression values, an update\'s answer and a query\'s items and page key', async () => {
    const client = documentClientOf(sdk);
    const pk = `DOC#${uuidv7()}`;
    for (const n of [1, 2, 3]) await client.send(new PutCommand({ TableName: table, Item: { pk, sk: `ITEM#${n}`, n, labels: { kind: 'row' } }, ConditionExpression: 'attribute_not_exists(pk)' }));
    const updated = await client.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk, sk: 'ITEM#2' },
        UpdateExpression: 'SET labels = :labels ADD n :one',
        ConditionExpression: 'n = :two',
        ExpressionAttributeValues: { ':labels': { kind: 'updated', at: ['now'] }, ':one': 1, ':two': 2 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(updated.Attributes).toEqual({ pk, sk: 'ITEM#2', n: 3, labels: { kind: 'updated', at: ['now'] } });

    const first = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :item)', ExpressionAttributeValues: { ':pk': pk, ':item': 'ITEM#' }, Limit: 2, ConsistentRead: true }));
    expect(first.Items?.map((item) => item.n)).toEqual([1, 3]);
    expect(first.LastEvaluatedKey).toEqual({ pk, sk: 'ITEM#2' });
    const rest = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: first.LastEvaluatedKey, ConsistentRead: true }));
    expect(rest.Items).toEqual([{ pk, sk: 'ITEM#3', n: 3, labels: { kind: 'row' } }]);
  });

  it('writes a transaction\'s puts, updates, deletes and condition checks, and batches both ways', async () => {
    const client = documentClientOf(sdk);
    const [kept, changed, removed, written] = [keyOf('KEPT'), keyOf('CHANGED'), keyOf('REMOVED'), keyOf('WRITTEN')];
    await client.send(new BatchWriteCommand({ RequestItems: { [table]: [kept, changed, removed].map((key) => ({ PutRequest: { Item: { ...key, n: 1 } } })) } }));
    await client.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: table, Key: kept, ConditionExpression: 'n = :one', ExpressionAttributeValues: { ':one': 1 } } },
          { Update: { TableName: table, Key: changed, UpdateExpression: 'SET n = :n, tags = :tags', ExpressionAttributeValues: { ':n': 5, ':tags': new Set([7, 8]) } } },
          { Delete: { TableName: table, Key: removed, ConditionExpression: 'n = :one', ExpressionAttributeValues: { ':one': 1 } } },
          { Put: { TableName: table, Item: { ...written, list: [{ a: 1 }] }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    const { Responses } = await client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: [kept, changed, removed, written], ConsistentRead: true } } }));
    const found = new Map((Responses?.[table] ?? []).map((item) => [item.sk, item]));
    expect([...found.keys()].sort()).toEqual(['CHANGED', 'KEPT', 'WRITTEN']);
    expect(found.get('CHANGED')).toEqual({ ...changed, n: 5, tags: new Set([7, 8]) });
    expect(found.get('WRITTEN')).toEqual({ ...written, list: [{ a: 1 }] });
  });

  it('gives back the keys and items a batch left unprocessed in native values', async () => {
    const client = documentClientOf(answeringBelowTheSdk(({ commandName }) =>
      commandName === 'BatchGetItemCommand'
        ? { Responses: { [table]: [{ pk: { S: 'P' }, sk: { S: 'DONE' }, n: { N: '1' } }] }, UnprocessedKeys: { [table]: { Keys: [{ pk: { S: 'P' }, sk: { S: 'LEFT' } }], ConsistentRead: true } } }
        : { UnprocessedItems: { [table]: [{ PutRequest: { Item: { pk: { S: 'P' }, sk: { S: 'LEFT' }, n: { N: '2' }, m: { M: { x: { BOOL: true } } } } } }] } },
    ));
    const read = await client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: [{ pk: 'P', sk: 'DONE' }, { pk: 'P', sk: 'LEFT' }] } } }));
    expect(read.Responses).toEqual({ [table]: [{ pk: 'P', sk: 'DONE', n: 1 }] });
    expect(read.UnprocessedKeys).toEqual({ [table]: { Keys: [{ pk: 'P', sk: 'LEFT' }], ConsistentRead: true } });
    const written = await client.send(new BatchWriteCommand({ RequestItems: { [table]: [{ PutRequest: { Item: { pk: 'P', sk: 'LEFT', n: 2, m: { x: true } } } }] } }));
    expect(written.UnprocessedItems).toEqual({ [table]: [{ PutRequest: { Item: { pk: 'P', sk: 'LEFT', n: 2, m: { x: true } } } }] });
  });

  it('leaves a failed condition\'s item on the error as DynamoDB sent it (the store reads it: shared/aws/store.ts)', async () => {
    const client = documentClientOf(sdk);
    const key = keyOf('HELD');
    await client.send(new PutCommand({ TableName: table, Item: { ...key, n: 1 } }));
    const failed = await client.send(new PutCommand({ TableName: table, Item: { ...key, n: 2 }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).then(
      () => undefined,
      (error: unknown) => error as { name: string; Item?: unknown },
    );
    expect(failed?.name).toBe('ConditionalCheckFailedException');
    expect(failed?.Item).toEqual({ pk: { S: key.pk }, sk: { S: key.sk }, n: { N: '1' } });
  });
});

/** An SDK client whose answers are these bodies (HTTP 200), made below its deserializer. */
function answeringBelowTheSdk(bodyFor: (context: { commandName: string }) => unknown): DynamoDBClient {
  const client = dynamoDbClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: localDatabaseCredentials(table) });
  client.middlewareStack.add(
    (_next, context) => async () => dynamoDbAnswer(200, bodyFor({ commandName: String(context.commandName) })),
    { step: 'deserialize', priority: 'low', name: 'answeringBelowTheSdk' },
  );
  return client;
}
