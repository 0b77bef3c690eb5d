import type { TableAccess } from './http/route';
import type { TableKey } from './tables';

/**
 * The asynchronous half of the manifest: every worker Lambda and what triggers it. As with routes,
 * the CDK stacks build the function and its event source from an entry, and the embedded platform's
 * drivers invoke the same handler with the event shape AWS would deliver:
 *   stream   -> DynamoDBStreamEvent (the table's stream, polled for real on DynamoDB Local)
 *   queue    -> SQSEvent (an SQS queue with a dead-letter queue; in process locally)
 *   schedule -> EventBridge scheduled event (a rule with a rate)
 */

export interface QueueDefinition {
  /** CloudFormation logical id stem and the env var suffix: QUEUE_URL_<NAME>. */
  name: string;
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the queue's dead-letter queue. */
  maxReceiveCount: number;
}

export type WorkerTrigger =
  | { kind: 'stream'; table: TableKey; batchSize: number }
  | { kind: 'queue'; queue: string; batchSize: number }
  | { kind: 'schedule'; rateMinutes: number };

export interface WorkerDefinition {
  /** Unique, camelCase; the Lambda's name. */
  name: string;
  /** Entry point under functions/, without extension; it exports `handler`. */
  handler: string;
  description: string;
  trigger: WorkerTrigger;
  tables: TableAccess;
  /** Queues the worker sends to (grants and QUEUE_URL_* env vars). */
  sendsTo?: readonly string[];
  /** The worker publishes to the platform's EventBridge bus. */
  publishesEvents?: boolean;
  /** Needs the ledger API (its URL and client credentials). */
  callsLedger?: boolean;
  timeoutSeconds?: number;
}

export const queues: readonly QueueDefinition[] = [];

export const workers: readonly WorkerDefinition[] = [
  {
    name: 'ledgerExpirePendings',
    handler: 'ledger/expire-pendings',
    description: 'Voids pending postings whose expiry has passed',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { ledger: 'RW' },
  },
];

/** The env var a function reads a queue's URL from. */
export const queueUrlEnv = (queue: string): string => `QUEUE_URL_${queue.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
