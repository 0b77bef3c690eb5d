/**
 * What functions hand work to: a queue (./queue.ts, SQS in AWS) and the event bus (./bus.ts,
 * EventBridge in AWS). The interfaces and limits live here, apart from the SDK clients, so a
 * module that only names them (a service taking a transport as a parameter, a delay's limit)
 * bundles no client.
 */

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
