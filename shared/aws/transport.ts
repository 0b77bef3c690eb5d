import { serviceClient } from './aws-json';
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


const sqsTransport: QueueTransport = {
  async send(queue, body, options = {}) {
    const url = process.env[queueUrlEnv(queue)];
    if (!url) throw new Error(`${queueUrlEnv(queue)} is not set: this function may not send to ${queue}`);
    // SQS speaks the AWS JSON 1.0 protocol since 2023 (AmazonSQS.SendMessage).
    await serviceClient('sqs').call('AmazonSQS.SendMessage', { QueueUrl: url, MessageBody: body, ...(options.delaySeconds === undefined ? {} : { DelaySeconds: options.delaySeconds }) });
  },
};

let installed: QueueTransport | undefined;

/** Called by the embedded platform only, before any handler runs. */
export function installQueueTransport(transport: QueueTransport | undefined): void {
  installed = transport;
}

export const queueTransport = (): QueueTransport => installed ?? sqsTransport;

// ---------------------------------------------------------------------------------------------
// The event bus

/** One event for the platform's EventBridge bus (`wallet-events-<stage>`). */
export interface BusEvent {
  /** EventBridge `Source`: `wallet` for domain events. */
  source: string;
  /** EventBridge `DetailType`: the event type, e.g. `transfer.completed`. */
  detailType: string;
  /** EventBridge `Detail`: JSON text (the envelope), at most 256 KiB with the rest of the entry. */
  detail: string;
}

/**
 * How a function publishes to the bus. In AWS that is PutEvents on EVENT_BUS_NAME (set, with the
 * grant, on workers that declare `publishesEvents`); the embedded platform installs an in-process
 * recorder instead, which tests read.
 */
export interface EventBusTransport {
  /** Publishes every entry or throws (a partially failed PutEvents throws too, naming the codes). */
  publish(events: readonly BusEvent[]): Promise<void>;
}

/** PutEvents takes at most 10 entries per call. */
const PUT_EVENTS_MAX_ENTRIES = 10;


const eventBridgeTransport: EventBusTransport = {
  async publish(events) {
    const bus = process.env.EVENT_BUS_NAME;
    if (!bus) throw new Error('EVENT_BUS_NAME is not set: this function may not publish events');
    for (let start = 0; start < events.length; start += PUT_EVENTS_MAX_ENTRIES) {
      const entries = events.slice(start, start + PUT_EVENTS_MAX_ENTRIES).map((event) => ({ EventBusName: bus, Source: event.source, DetailType: event.detailType, Detail: event.detail }));
      const result = await serviceClient('events').call<{ FailedEntryCount?: number; Entries?: { ErrorCode?: string }[] }>('AWSEvents.PutEvents', { Entries: entries });
      if ((result.FailedEntryCount ?? 0) > 0) {
        const codes = (result.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : []));
        throw new Error(`PutEvents failed for ${result.FailedEntryCount} of ${entries.length} entries: ${[...new Set(codes)].join(', ')}`);
      }
    }
  },
};

/** The embedded platform's bus: keeps the most recent events in memory (a bounded list). */
export class InMemoryEventBus implements EventBusTransport {
  private readonly events: (BusEvent & { publishedAt: Date })[] = [];

  constructor(private readonly capacity = 1000) {}

  async publish(events: readonly BusEvent[]): Promise<void> {
    for (const event of events) this.events.push({ ...event, publishedAt: new Date() });
    if (this.events.length > this.capacity) this.events.splice(0, this.events.length - this.capacity);
  }

  /** What was published, oldest first. */
  published(): readonly (BusEvent & { publishedAt: Date })[] {
    return [...this.events];
  }
}

let installedBus: EventBusTransport | undefined;

/** Called by the embedded platform only, before any handler runs. */
export function installEventBusTransport(transport: EventBusTransport | undefined): void {
  installedBus = transport;
}

export const eventBusTransport = (): EventBusTransport => installedBus ?? eventBridgeTransport;
