import { BatchWriteItemCommand, DescribeTableCommand, DescribeTimeToLiveCommand, PutItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { LOCAL_REGION, localSdkClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { ensureTables } from '../../local/tables';
import { ManualClock } from '../../shared/kernel/clock';
import { queueTransport } from '../../shared/aws/queue';
import { walletTable } from '../../shared/tables';
import type { QueueDefinition, WorkerDefinition } from '../../shared/workers';
import { startTestPlatform } from '../support/platform';
import { until } from '../support/time';

// Workers that exist only in this test, driven exactly as the manifest's workers are.
const testQueue: QueueDefinition = { name: 'testJobs', visibilityTimeoutSeconds: 30, maxReceiveCount: 3 };
const testWorkers: WorkerDefinition[] = [
  { name: 'testStream', handler: 'test/stream', description: 'records stream events', trigger: { kind: 'stream', table: 'wallet', batchSize: 10 }, tables: {} },
  {
    name: 'testFilteredStream',
    handler: 'test/filtered-stream',
    description: 'records only the stream events its filter admits',
    trigger: { kind: 'stream', table: 'wallet', batchSize: 10, filters: [{ dynamodb: { NewImage: { kind: { S: ['wanted', 'also'] } } } }, { dynamodb: { Keys: { pk: { S: ['FILTER#KEYED'] } } } }] },
    tables: {},
  },
  { name: 'testQueueWorker', handler: 'test/queue', description: 'records queue events', trigger: { kind: 'queue', queue: 'testJobs', batchSize: 5 }, tables: {} },
  { name: 'testSchedule', handler: 'test/schedule', description: 'records schedule events', trigger: { kind: 'schedule', rateMinutes: 60 }, tables: {} },
];

const streamEvents: DynamoDBStreamEvent[] = [];
const filteredEvents: DynamoDBStreamEvent[] = [];
const queueEvents: SQSEvent[] = [];
const scheduleEvents: ScheduledEvent[] = [];
let failStreamOnce = true;

const handlers: Record<string, unknown> = {
  'test/stream': async (event: DynamoDBStreamEvent) => {
    if (failStreamOnce && event.Records.some((r) => r.dynamodb?.NewImage?.pk?.S === 'FAIL#1')) {
      failStreamOnce = false;
      throw new Error('transient');
    }
    streamEvents.push(event);
  },
  'test/filtered-stream': async (event: DynamoDBStreamEvent) => {
    filteredEvents.push(event);
  },
  'test/queue': async (event: SQSEvent) => {
    queueEvents.push(event);
    return { batchItemFailures: event.Records.filter((r) => r.body === 'poison').map((r) => ({ itemIdentifier: r.messageId })) };
  },
  'test/schedule': async (event: ScheduledEvent) => {
    scheduleEvents.push(event);
  },
};

const clock = new ManualClock('2026-03-01T00:00:00Z');
let platform: Platform;
let client: DynamoDBClient;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: testWorkers, queues: [testQueue], clock, handlerFor: async (entry) => handlers[entry] });
  client = localSdkClient(platform.dynamodbEndpoint, platform.tables.wallet.name);
});

afterAll(async () => {
  client?.destroy();
  await platform?.stop();
});

describe('tables', () => {
  it('creates the wallet table from its definition: keys, indexes, stream and TTL', async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: platform.tables.wallet.name }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(walletTable.indexes.map((i) => i.name).sort());
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: platform.tables.wallet.name }));
    expect(ttl.TimeToLiveDescription?.AttributeName).toBe(walletTable.ttlAttribute);
  });

  it('leaves existing tables alone on a second start', async () => {
    const again = await ensureTables(platform.dynamodbEndpoint, platform.tables.wallet.name.replace(/-WalletTable$/, ''));
    expect(again.wallet).toEqual(platform.tables.wallet);
  });
});

describe('the stream driver', () => {
  it('delivers each new item to the stream worker as a DynamoDBStreamEvent', async () => {
    await client.send(new PutItemCommand({ TableName: platform.tables.wallet.name, Item: { pk: { S: 'EVT#1' }, sk: { S: 'A' }, n: { N: '7' } } }));
    await until(() => streamEvents.flatMap((e) => e.Records).some((r) => r.dynamodb?.Keys?.pk?.S === 'EVT#1'));
    const record = streamEvents.flatMap((e) => e.Records).find((r) => r.dynamodb?.Keys?.pk?.S === 'EVT#1')!;
    expect(record).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: platform.tables.wallet.streamArn,
      dynamodb: { NewImage: { pk: { S: 'EVT#1' }, sk: { S: 'A' }, n: { N: '7' } }, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    expect(typeof record.dynamodb?.ApproximateCreationDateTime).toBe('number');
  });

  it('hands empty maps over typed, as DynamoDB streams do, so the image unmarshalls whole', async () => {
    // DynamoDB Local writes an empty map into its stream as an untyped `{}`; Lambda never sees that.
    const item = { pk: { S: 'EMPTY#1' }, sk: { S: 'A' }, metadata: { M: {} }, nested: { M: { inner: { M: {} }, list: { L: [{ M: {} }, { S: 'x' }] } } }, none: { L: [] } };
    await client.send(new PutItemCommand({ TableName: platform.tables.wallet.name, Item: item }));
    await until(() => streamEvents.flatMap((e) => e.Records).some((r) => r.dynamodb?.Keys?.pk?.S === 'EMPTY#1'));
    const record = streamEvents.flatMap((e) => e.Records).find((r) => r.dynamodb?.Keys?.pk?.S === 'EMPTY#1')!;
    expect(record.dynamodb?.NewImage).toEqual(item);
    expect(record.awsRegion).toBe(LOCAL_REGION);
    expect(unmarshall(record.dynamodb!.NewImage as Record<string, AttributeValue>)).toEqual({ pk: 'EMPTY#1', sk: 'A', metadata: {}, nested: { inner: {}, list: [{}, 'x'] }, none: [] });
  });

  it("invokes a worker only for the records its filter patterns admit, as Lambda's event filtering does", async () => {
    const put = (sk: string, kind: string, pk = 'FILTER#1') => client.send(new PutItemCommand({ TableName: platform.tables.wallet.name, Item: { pk: { S: pk }, sk: { S: sk }, kind: { S: kind } } }));
    await put('1', 'unwanted');
    await put('2', 'wanted');
    await put('3', 'other');
    await put('4', 'also');
    await put('5', 'other', 'FILTER#KEYED');
    const filtered = () => filteredEvents.flatMap((e) => e.Records).filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('FILTER#'));
    await until(() => filtered().length >= 3);
    // The unfiltered worker saw all five; the filtered one got nothing else, and no empty batch.
    await until(() => streamEvents.flatMap((e) => e.Records).filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('FILTER#')).length === 5);
    await platform.streams!.settle();
    expect(filtered().map((r) => r.dynamodb?.NewImage?.kind?.S)).toEqual(['wanted', 'also', 'other']);
    expect(filteredEvents.every((e) => e.Records.length > 0)).toBe(true);
  });

  it("reads pages of the shard and invokes a worker with batches of up to its batch size of the records its filters admit, as Lambda's poller does", async () => {
    // Wanted and unwanted records interleaved, written 24 at a time: read ten at a time, then filtered, no batch would be full.
    const wanted = Array.from({ length: 36 }, (_, n) => `BATCH#${String(n).padStart(2, '0')}`);
    // All written before any is read, whatever the machine's speed: a page then holds them all.
    await platform.streams!.pause();
    for (let round = 0; round < 3; round += 1) {
      const writes = wanted.slice(round * 12, round * 12 + 12).flatMap((pk) => [
        { PutRequest: { Item: { pk: { S: pk }, sk: { S: 'A' }, kind: { S: 'wanted' } } } },
        { PutRequest: { Item: { pk: { S: `${pk}#unwanted` }, sk: { S: 'A' }, kind: { S: 'unwanted' } } } },
      ]);
      await client.send(new BatchWriteItemCommand({ RequestItems: { [platform.tables.wallet.name]: writes } }));
    }
    platform.streams!.resume();
    const batches = () => filteredEvents.map((e) => e.Records.filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('BATCH#'))).filter((records) => records.length > 0);
    await until(() => batches().flat().length >= wanted.length);
    await platform.streams!.settle();
    expect(batches().flat().map((r) => r.dynamodb?.Keys?.pk?.S)).toEqual(wanted);
    expect(Math.max(...batches().map((records) => records.length))).toBe(10);
  });

  it('retries a failed batch until the worker succeeds, losing nothing', async () => {
    await client.send(new PutItemCommand({ TableName: platform.tables.wallet.name, Item: { pk: { S: 'FAIL#1' }, sk: { S: 'A' } } }));
    await until(() => streamEvents.flatMap((e) => e.Records).some((r) => r.dynamodb?.Keys?.pk?.S === 'FAIL#1'));
    expect(failStreamOnce).toBe(false);
  });
});

describe('the queue driver', () => {
  it('delivers sent messages as an SQSEvent through the same transport functions use', async () => {
    await queueTransport().send('testJobs', '{"job":1}');
    await platform.queues.drain();
    const record = queueEvents.flatMap((e) => e.Records).find((r) => r.body === '{"job":1}')!;
    expect(record).toMatchObject({ eventSource: 'aws:sqs', attributes: { ApproximateReceiveCount: '1' } });
  });

  it('holds a delayed message until the clock passes its delay', async () => {
    await queueTransport().send('testJobs', 'later', { delaySeconds: 600 });
    await platform.queues.drain();
    expect(queueEvents.flatMap((e) => e.Records).some((r) => r.body === 'later')).toBe(false);
    clock.advance(600_000);
    await platform.queues.drain();
    expect(queueEvents.flatMap((e) => e.Records).some((r) => r.body === 'later')).toBe(true);
  });

  it('refuses a delay SQS would refuse', async () => {
    await expect(queueTransport().send('testJobs', 'x', { delaySeconds: 901 })).rejects.toThrow(/DelaySeconds/);
  });

  it('redelivers a failed message after the visibility timeout, then dead-letters it', async () => {
    await queueTransport().send('testJobs', 'poison');
    for (let receive = 1; receive <= 3; receive += 1) {
      await platform.queues.drain();
      clock.advance(30_000);
    }
    const receives = queueEvents.flatMap((e) => e.Records).filter((r) => r.body === 'poison').map((r) => r.attributes.ApproximateReceiveCount);
    expect(receives).toEqual(['1', '2', '3']);
    expect(platform.queues.deadLetters('testJobs')).toEqual(['poison']);
    expect(platform.queues.depth('testJobs')).toBe(0);
  });
});

describe('the scheduler', () => {
  it('invokes a schedule worker with the EventBridge scheduled event', async () => {
    await platform.scheduler.run('testSchedule', new Date('2026-03-01T00:05:00Z'));
    expect(scheduleEvents.at(-1)).toMatchObject({
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      time: '2026-03-01T00:05:00Z',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/testSchedule'],
    });
  });
});

it('uses the run-wide DynamoDB Local', () => {
  expect(platform.dynamodbEndpoint).toBe(inject('dynamodbEndpoint'));
});
