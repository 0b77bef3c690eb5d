import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sdkClientConfig } from './clients';

/**
 * The SQS client and the one command the platform sends: ./transport.ts loads this module on the
 * first message (a dynamic import of the package itself would bundle every command of it).
 */
export { SendMessageCommand, SQSClient };

/** The container's client (./clients.ts settings). */
export const newSqsClient = (): SQSClient => new SQSClient(sdkClientConfig());
