import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { keyAttributes, tables, type TableDefinition, type TableKey } from '../shared/tables';

/**
 * Creates the tables the CDK stacks would, from the same definitions (shared/tables.ts), if they
 * are missing. Returns each table's name and, for the wallet table, its stream ARN.
 */
export interface LocalTable {
  name: string;
  streamArn?: string;
}

export const localTableName = (prefix: string, definition: TableDefinition): string => `${prefix}-${definition.logicalId}`;

export async function ensureTables(client: DynamoDBClient, prefix: string): Promise<Record<TableKey, LocalTable>> {
  const result = {} as Record<TableKey, LocalTable>;
  for (const [key, definition] of Object.entries(tables) as [TableKey, TableDefinition][]) {
    result[key] = await ensureTable(client, localTableName(prefix, definition), definition);
  }
  return result;
}

async function ensureTable(client: DynamoDBClient, name: string, definition: TableDefinition): Promise<LocalTable> {
  try {
    const existing = await client.send(new DescribeTableCommand({ TableName: name }));
    return { name, streamArn: existing.Table?.LatestStreamArn };
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const created = await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttributes(definition).map((attribute) => ({
        AttributeName: attribute.name,
        AttributeType: attribute.type,
      })),
      KeySchema: [
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        { AttributeName: definition.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: definition.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
      StreamSpecification: definition.stream ? { StreamEnabled: true, StreamViewType: definition.stream } : undefined,
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: name,
      TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
    }),
  );
  return { name, streamArn: created.TableDescription?.LatestStreamArn };
}
