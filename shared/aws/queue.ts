import type { SQSClient } from '@aws-sdk/client-sqs';
import { retryingOnce } from '../kernel/lazy';
import { queueUrlEnv } from '../workers';
import type { QueueTransport } from './transport';

/**
 * The queue transport of a function that sends: SQS SendMessage to the queue URL its stack set,
 * unless the embedded platform installed its queue driver. The SDK client (./queue-client.ts) is
 * loaded on the first message, not at import: most functions that can queue do so on few paths.
 */

const containerSqs = retryingOnce(async () => {
  const sdk = await import('./queue-client');
  return { sdk, client: sdk.newSqsClient() };
});

/** SendMessage through `client`, the container's by default (tests pass a mocked one). */
export function sqsTransport(client?: SQSClient): QueueTransport {
  return {
    async send(queue, body, options = {}) {
      const url = process.env[queueUrlEnv(queue)];
      if (!url) throw new Error(`${queueUrlEnv(queue)} is not set: this function may not send to ${queue}`);
      const { sdk, client: containerClient } = await containerSqs();
      await (client ?? containerClient).send(new sdk.SendMessageCommand({ QueueUrl: url, MessageBody: body, ...(options.delaySeconds === undefined ? {} : { DelaySeconds: options.delaySeconds }) }));
    },
  };
}

let installed: QueueTransport | undefined;

/** Called by the embedded platform only, before any handler runs. */
export function installQueueTransport(transport: QueueTransport | undefined): void {
  installed = transport;
}

const containerTransport = sqsTransport();

export const queueTransport = (): QueueTransport => installed ?? containerTransport;
