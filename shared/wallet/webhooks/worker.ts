import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseDeliveryMessage } from './deliveries';
import { processDeliveryMessage, type DeliveryDeps } from './attempts';

/**
 * The delivery worker's handler: the batch's messages in parallel (each attempt may wait up to the
 * 10 s timeout), each on its own. A message whose processing throws (DynamoDB or SQS unavailable)
 * is reported in `batchItemFailures` and comes back after the visibility timeout; after the
 * queue's maxReceiveCount it goes to the dead-letter queue (alarmed). A receiver's failure is not
 * such a failure: it is a recorded attempt with its retry scheduled.
 */
export function createDeliveryHandler(deps: () => DeliveryDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const resolved = deps();
    const batchItemFailures: SQSBatchItemFailure[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const message = parseDeliveryMessage(record.body);
        if (!message) {
          // Retrying cannot make it readable; the log keeps it.
          resolved.log?.('dropped an unreadable webhook delivery message', { message_id: record.messageId });
          return;
        }
        try {
          await processDeliveryMessage(resolved, message);
        } catch (error) {
          resolved.log?.('webhook delivery failed; the queue retries the message', { message_id: record.messageId, error: String(error) });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures };
  };
}
