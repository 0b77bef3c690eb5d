import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queueUrlEnv } from '../workers';

/**
 * How a function hands a message to a queue. In AWS that is SQS, with the queue URL the stack put
 * in the environment; the embedded platform installs its in-process queue driver instead, which
 * invokes the same worker handler with the SQSEvent AWS would deliver.
 */
export interface QueueTransport {
  send(queue: string, body: string, options?: { delaySeconds?: number }): Promise<void>;
}

/** SQS refuses longer delays; the local driver enforces the same limit so nothing works only locally. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

let sqs: SQSClient | undefined;

const sqsTransport: QueueTransport = {
  async send(queue, body, options = {}) {
    const url = process.env[queueUrlEnv(queue)];
    if (!url) throw new Error(`${queueUrlEnv(queue)} is not set: this function may not send to ${queue}`);
    sqs ??= new SQSClient({});
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body, DelaySeconds: options.delaySeconds }));
  },
};

let installed: QueueTransport | undefined;

/** Called by the embedded platform only, before any handler runs. */
export function installQueueTransport(transport: QueueTransport | undefined): void {
  installed = transport;
}

export const queueTransport = (): QueueTransport => installed ?? sqsTransport;
