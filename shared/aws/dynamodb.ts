import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../kernel/config';

/**
 * The DynamoDB document client for Lambda entry points, created once per container. Services never
 * import this: they take a client as a parameter (STYLE.md: clients injected), so tests can wrap it.
 */
export function createDocumentClient(options: { endpoint?: string; region?: string } = {}): DynamoDBDocumentClient {
  const endpoint = options.endpoint ?? config.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({
    region: options.region ?? config.AWS_REGION,
    ...(endpoint ? { endpoint } : {}),
    // SDK retries cover throttling and 5xx; transaction conflicts are retried by the ledger itself.
    maxAttempts: 3,
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
}

/** One item of a TransactWriteItems, in document-client form. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

