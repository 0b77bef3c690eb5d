import type { Context, ScheduledEvent } from 'aws-lambda';
import { uuidv7 } from '../../shared/kernel/ids';
import { workerContext } from './context';
import { inInvocation } from './invocations';

/**
 * EventBridge rate rules, in process: each schedule worker is invoked every `rateMinutes` with the
 * scheduled event EventBridge sends. `run` invokes one now, so tests move an injected clock and
 * run the worker instead of waiting for the rate.
 */

export type ScheduleHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface ScheduledWorker {
  name: string;
  handler: ScheduleHandler;
  rateMinutes: number;
  /** The function's configured timeout: its invocations' deadline (shared/kernel/retry.ts). */
  timeoutSeconds: number;
}

export class LocalScheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly workers: readonly ScheduledWorker[],
    private readonly onError: (worker: string, error: unknown) => void = () => undefined,
  ) {}

  start(): void {
    for (const worker of this.workers) {
      this.timers.push(setInterval(() => void this.run(worker.name).catch((e: unknown) => this.onError(worker.name, e)), worker.rateMinutes * 60_000));
    }
  }

  async run(name: string, time: Date = new Date()): Promise<unknown> {
    const worker = this.workers.find((w) => w.name === name);
    if (!worker) throw new Error(`unknown scheduled worker ${name}`);
    const context = workerContext(name, worker.timeoutSeconds);
    const invocation = inInvocation(context, () => worker.handler(scheduledEvent(name, time), context));
    this.running.add(invocation);
    try {
      return await invocation;
    } finally {
      this.running.delete(invocation);
    }
  }

  async stop(): Promise<void> {
    this.timers.forEach(clearInterval);
    await Promise.allSettled([...this.running]);
  }
}

function scheduledEvent(name: string, time: Date): ScheduledEvent {
  return {
    version: '0',
    id: uuidv7(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:000000000000:rule/${name}`],
    detail: {},
  };
}
