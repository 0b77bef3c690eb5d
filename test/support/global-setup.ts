import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../local/dynamodb';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

/** Starts one in-memory DynamoDB Local for the run and stops it (and its JVM) at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamodb = await startDynamoDbLocal();
  project.provide('dynamodbEndpoint', dynamodb.endpoint);
  return () => dynamodb.stop();
}
