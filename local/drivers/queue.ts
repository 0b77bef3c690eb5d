import { createHash } from 'node:crypto';
import type { SQSEvent, SQSBatchResponse, Context } from 'aws-lambda';
import type { Clock } from '../../shared/kernel/clock';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { MAX_QUEUE_DELAY_SECONDS, type QueueTransport } from '../../shared/aws/transport';
import type { QueueDefinition } from '../../shared/workers';
import { workerContext } from './context';
import { inInvocation } from './invocations';
import type { QueueJournal, StoredMessage } from './queue-journal';

/**
 * In-process SQS: messages wait out their delay, are delivered to the queue's worker in batches as
 * an SQSEvent, come back after the visibility timeout when the worker throws or reports them in
 * `batchItemFailures`, and move to the dead-letter list after `maxReceiveCount` receives, as SQS
 * with a redrive policy does. Time comes from an injectable clock so tests can skip delays.
 * With a journal (the embedded platform always gives one) every message is written through to a
 * DynamoDB Local table and loaded back at start, so a crash loses no message (./queue-journal.ts).
 */

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

type Message = StoredMessage;

interface Consumer {
  name: string;
  handler: QueueHandler;
  batchSize: number;
  /** The function's configured timeout: its invocations' deadline (shared/kernel/retry.ts). */
  timeoutSeconds: number;
}

export class LocalQueues implements QueueTransport {
  private readonly messages = new Map<string, Message[]>();
  private readonly dead = new Map<string, Message[]>();
  private readonly consumers = new Map<string, Consumer>();
  private readonly definitions: Map<string, QueueDefinition>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    definitions: readonly QueueDefinition[],
    private readonly clock: Clock = systemClock,
    private readonly pollMs = 50,
    private readonly journal?: QueueJournal,
  ) {
    this.definitions = new Map(definitions.map((d) => [d.name, d]));
  }

  /** Loads what the journal kept (messages sent before a stop or a crash); call before `start`. */
  async load(): Promise<number> {
    if (!this.journal) return 0;
    let loaded = 0;
    for (const queue of this.definitions.keys()) {
      for (const message of await this.journal.load(queue)) {
        const lists = message.dead ? this.dead : this.messages;
        const list = lists.get(queue) ?? [];
        list.push(message);
        lists.set(queue, list);
        loaded += 1;
      }
    }
    return loaded;
  }

  async send(queue: string, body: string, options: { delaySeconds?: number } = {}): Promise<void> {
    this.definition(queue);
    const delaySeconds = options.delaySeconds ?? 0;
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_QUEUE_DELAY_SECONDS) {
      throw new Error(`DelaySeconds must be an integer from 0 to ${MAX_QUEUE_DELAY_SECONDS}; got ${delaySeconds}`);
    }
    const now = this.clock.now().getTime();
    const message: Message = { queue, id: uuidv7(), body, sentAt: now, visibleAt: now + delaySeconds * 1000, receiveCount: 0 };
    // Written before it is acknowledged, as SQS stores a message before SendMessage answers.
    await this.journal?.save(message);
    const list = this.messages.get(queue) ?? [];
    list.push(message);
    this.messages.set(queue, list);
  }

  consume(queue: string, consumer: Consumer): void {
    this.definition(queue);
    this.consumers.set(queue, consumer);
  }

  start(): void {
    const tick = () => {
      this.running = this.pollOnce()
        .then(() => undefined)
        .finally(() => {
        if (this.timer) this.timer = setTimeout(tick, this.pollMs);
      });
    };
    this.timer = setTimeout(tick, this.pollMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Whether a worker consumes `queue` on this platform (a platform started without workers has none). */
  consumes(queue: string): boolean {
    return this.consumers.has(queue);
  }

  /** Messages still queued (visible or not), for tests and the start-up summary. */
  depth(queue: string): number {
    return this.messages.get(queue)?.length ?? 0;
  }

  deadLetters(queue: string): string[] {
    return (this.dead.get(queue) ?? []).map((m) => m.body);
  }

  /** Delivers every message visible now, batch by batch, until none is left. */
  async drain(): Promise<void> {
    while (await this.pollOnce()) {
      /* keep delivering */
    }
  }

  private async pollOnce(): Promise<boolean> {
    let delivered = false;
    for (const [queue, consumer] of this.consumers) {
      const now = this.clock.now().getTime();
      const list = this.messages.get(queue) ?? [];
      const batch = list.filter((m) => m.visibleAt <= now).slice(0, consumer.batchSize);
      if (batch.length === 0) continue;
      delivered = true;
      await this.deliver(queue, consumer, batch, now);
    }
    return delivered;
  }

  private async deliver(queue: string, consumer: Consumer, batch: Message[], now: number): Promise<void> {
    const definition = this.definition(queue);
    for (const message of batch) {
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + definition.visibilityTimeoutSeconds * 1000;
    }
    // The receive is recorded first: a crash during the handler leaves the messages invisible
    // until their timeout, then delivered again, as SQS does.
    await Promise.all(batch.map((message) => this.journal?.save(message)));
    let failed: Set<string>;
    try {
      const context = workerContext(consumer.name, consumer.timeoutSeconds);
      const response = await inInvocation(context, () => consumer.handler(sqsEvent(queue, batch), context));
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch {
      failed = new Set(batch.map((m) => m.id));
    }
    const done = batch.filter((message) => !failed.has(message.id));
    const buried = batch.filter((message) => failed.has(message.id) && message.receiveCount >= definition.maxReceiveCount);
    for (const message of buried) await this.journal?.save({ ...message, dead: true });
    await Promise.all([...done, ...buried].map((message) => this.journal?.remove(message)));
    const list = this.messages.get(queue) ?? [];
    this.messages.set(
      queue,
      list.filter((message) => !done.includes(message) && !buried.includes(message)),
    );
    if (buried.length > 0) {
      const dead = this.dead.get(queue) ?? [];
      dead.push(...buried.map((message) => ({ ...message, dead: true })));
      this.dead.set(queue, dead);
    }
  }

  private definition(queue: string): QueueDefinition {
    const definition = this.definitions.get(queue);
    if (!definition) throw new Error(`unknown queue ${queue}`);
    return definition;
  }
}

function sqsEvent(queue: string, batch: Message[]): SQSEvent {
  return {
    Records: batch.map((message) => ({
      messageId: message.id,
      receiptHandle: `${message.id}#${message.receiveCount}`,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(message.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
      awsRegion: 'us-east-1',
    })),
  };
}
