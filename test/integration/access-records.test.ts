import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { ensureTables } from '../../local/tables';
import { GetCommand, PutCommand, QueryCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { createAccessRecordsHandler, type AccessRecord } from '../../shared/wallet/access-records';
import type { StoreDeps } from '../../shared/wallet/deps';
import { walletKeys } from '../../shared/wallet/keys';

/**
 * The access-records worker against DynamoDB Local: what it writes for each kind, once per record
 * however often SQS delivers it, and what it hands back to the queue.
 */

let client: DocumentClient;
let deps: StoreDeps;
const handle = createAccessRecordsHandler(() => deps);

beforeAll(async () => {
  const tables = await ensureTables(inject('dynamodbEndpoint'), `acc${uuidv7().slice(-8)}`);
  client = localDocumentClient(inject('dynamodbEndpoint'));
  deps = { client, table: tables.wallet.name, clock: systemClock, ids: uuidv7 };
});

const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, index) => ({ messageId: `m${index}`, body })) }) as unknown as SQSEvent;
const message = (record: AccessRecord) => JSON.stringify(record);

describe('the access-records worker', () => {
  it('writes a support access record once, however many times it is delivered', async () => {
    const record: AccessRecord = {
      kind: 'support_access',
      id: uuidv7(),
      grant_id: uuidv7(),
      tenant_id: uuidv7(),
      staff_id: uuidv7(),
      operation: 'listUsers',
      outcome: 'admitted',
      at: new Date().toISOString(),
    };

    const first = await handle(event(message(record), message(record)));
    const again = await handle(event(message(record)));

    expect([first, again]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    const day = await client.send(
      new QueryCommand({ TableName: deps.table, KeyConditionExpression: 'pk = :pk', FilterExpression: 'grant_id = :grant', ExpressionAttributeValues: { ':pk': `ACCESS_LOG#${record.at.slice(0, 10)}`, ':grant': record.grant_id } }),
    );
    expect(day.Items).toEqual([expect.objectContaining({ entity: 'support_access', id: record.id, operation: 'listUsers', outcome: 'admitted', staff_id: record.staff_id })]);
  });

  it("moves an API key's last use forward only, by at least the minute's resolution", async () => {
    const keyId = uuidv7();
    await client.send(new PutCommand({ TableName: deps.table, Item: { ...walletKeys.apiKey(keyId), id: keyId, last_used_at: null } }));
    const lastUsed = async () => (await client.send(new GetCommand({ TableName: deps.table, Key: walletKeys.apiKey(keyId) }))).Item?.last_used_at;
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 27, 12, minutes)).toISOString();

    await handle(event(message({ kind: 'api_key_used', key_id: keyId, at: at(10) })));
    await handle(event(message({ kind: 'api_key_used', key_id: keyId, at: at(10) }), message({ kind: 'api_key_used', key_id: keyId, at: at(5) })));
    expect(await lastUsed()).toBe(at(10));
    await handle(event(message({ kind: 'api_key_used', key_id: keyId, at: at(12) })));
    expect(await lastUsed()).toBe(at(12));
    // A key that does not exist is not created by a report of its use.
    const ghost = uuidv7();
    expect(await handle(event(message({ kind: 'api_key_used', key_id: ghost, at: at(12) })))).toEqual({ batchItemFailures: [] });
    expect((await client.send(new GetCommand({ TableName: deps.table, Key: walletKeys.apiKey(ghost) }))).Item).toBeUndefined();
  });

  it('hands back what it cannot write or read, for the queue to retry and then keep in its dead-letter queue', async () => {
    const result = await handle(event('not json', JSON.stringify({ kind: 'put_item', item: { pk: 'TENANT#x', sk: 'TENANT' } })));

    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(['m0', 'm1']);
    expect((await client.send(new GetCommand({ TableName: deps.table, Key: { pk: 'TENANT#x', sk: 'TENANT' } }))).Item).toBeUndefined();
  });
});
