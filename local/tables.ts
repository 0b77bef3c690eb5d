import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { localDatabaseOf } from '../shared/aws/dynamodb';
import { keyAttributes, tables, type TableDefinition, type TableKey } from '../shared/tables';
import { localSdkClient } from './dynamodb';

/**
 * Creates the tables the CDK stacks would, from the same definitions (shared/tables.ts), if they
 * are missing, each in its own database of DynamoDB Local (`localDatabaseOf`). Returns each
 * table's name and, for the wallet table, its stream ARN.
 */
export interface LocalTable {
  name: string;
  streamArn?: string;
}

export const localTableName = (prefix: string, definition: TableDefinition): string => `${prefix}-${definition.logicalId}`;

export async function ensureTables(endpoint: string, prefix: string): Promise<Record<TableKey, LocalTable>> {
  const result = {} as Record<TableKey, LocalTable>;
  for (const [key, definition] of Object.entries(tables) as [TableKey, TableDefinition][]) {
    const name = localTableName(prefix, definition);
    const client = localSdkClient(endpoint, name);
    try {
      result[key] = await ensureTable(client, name, definition);
    } finally {
      client.destroy();
    }
  }
  return result;
}

/** The databases of DynamoDB Local the platform's tables under `prefix` live in. */
export const localDatabases = (prefix: string): string[] => Object.values(tables).map((definition) => localDatabaseOf(localTableName(prefix, definition)));

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
