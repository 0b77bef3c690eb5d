import {
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  PutItemCommand,
  QueryCommand,
  ResourceNotFoundException,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';

/**
 * Where the embedded platform's queues keep their messages: a table of DynamoDB Local, beside the
 * platform's own tables. SQS keeps a message until a consumer deletes it; so does this, so a
 * message sent before a crash (a sandbox processor's confirmation, a webhook delivery attempt) is
 * delivered after the restart instead of being lost with the process. Each change is one item
 * write, like SQS's own per-message durability; the in-memory lists of LocalQueues are a cache of
 * this table, loaded at start.
 */

export interface StoredMessage {
  queue: string;
  id: string;
  body: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** In the queue's dead-letter list. */
  dead?: boolean;
}

export interface QueueJournal {
  load(queue: string): Promise<StoredMessage[]>;
  save(message: StoredMessage): Promise<void>;
  remove(message: Pick<StoredMessage, 'queue' | 'id' | 'dead'>): Promise<void>;
}

const partitionOf = (message: Pick<StoredMessage, 'queue' | 'dead'>) => (message.dead ? `${message.queue}#dead` : message.queue);

/** The journal in a DynamoDB Local table (created if missing). */
export async function dynamoQueueJournal(client: DynamoDBClient, tableName: string): Promise<QueueJournal> {
  await ensureTable(client, tableName);
  return {
    async load(queue) {
      const messages: StoredMessage[] = [];
      for (const partition of [queue, `${queue}#dead`]) {
        let start: Record<string, AttributeValue> | undefined;
        do {
          const page = await client.send(
            new QueryCommand({ TableName: tableName, KeyConditionExpression: 'q = :q', ExpressionAttributeValues: { ':q': { S: partition } }, ExclusiveStartKey: start, ConsistentRead: true }),
          );
          for (const item of page.Items ?? []) messages.push(fromItem(queue, item, partition !== queue));
          start = page.LastEvaluatedKey;
        } while (start);
      }
      return messages;
    },
    async save(message) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: toItem(message) }));
    },
    async remove(message) {
      await client.send(new DeleteItemCommand({ TableName: tableName, Key: { q: { S: partitionOf(message) }, id: { S: message.id } } }));
    },
  };
}

function toItem(message: StoredMessage): Record<string, AttributeValue> {
  return {
    q: { S: partitionOf(message) },
    id: { S: message.id },
    body: { S: message.body },
    sent_at: { N: String(message.sentAt) },
    visible_at: { N: String(message.visibleAt) },
    receive_count: { N: String(message.receiveCount) },
    ...(message.firstReceivedAt === undefined ? {} : { first_received_at: { N: String(message.firstReceivedAt) } }),
  };
}

function fromItem(queue: string, item: Record<string, AttributeValue>, dead: boolean): StoredMessage {
  return {
    queue,
    id: item.id!.S!,
    body: item.body!.S!,
    sentAt: Number(item.sent_at!.N),
    visibleAt: Number(item.visible_at!.N),
    receiveCount: Number(item.receive_count!.N),
    ...(item.first_received_at ? { firstReceivedAt: Number(item.first_received_at.N) } : {}),
    ...(dead ? { dead: true } : {}),
  };
}

async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'q', AttributeType: 'S' },
        { AttributeName: 'id', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'q', KeyType: 'HASH' },
        { AttributeName: 'id', KeyType: 'RANGE' },
      ],
    }),
  );
}
