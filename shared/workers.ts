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

/**
 * A Lambda event filter pattern over a stream record's `dynamodb` key (the only key DynamoDB event
 * source mappings filter on): nested objects down to arrays of the exact values admitted, e.g.
 * `{ dynamodb: { NewImage: { entity: { S: ['event'] } } } }`. A record reaches the worker when it
 * matches any of the trigger's patterns; the others are passed over without invoking it.
 */
export interface StreamFilterPattern {
  dynamodb: StreamFilterNode;
}
export interface StreamFilterNode {
  [name: string]: StreamFilterNode | readonly string[];
}

export type WorkerTrigger =
  | { kind: 'stream'; table: TableKey; batchSize: number; filters?: readonly StreamFilterPattern[] }
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
  /** Default WORKER_TIMEOUT_SECONDS. */
  timeoutSeconds?: number;
  /**
   * Metrics the worker writes (shared/kernel/metrics.ts: namespace WalletPlatform, dimension Stage)
   * that page someone: the stack adds an alarm on each, in breach when the metric's maximum over
   * one period of the schedule is above `above`. No data (the worker did not run) is no breach.
   */
  alarms?: readonly WorkerAlarm[];
}

export interface WorkerAlarm {
  metric: string;
  above: number;
  description: string;
}

export const queues: readonly QueueDefinition[] = [
  // The sandbox top-up processor's pending confirmations (shared/wallet/topups/sandbox.ts).
  { name: 'sandboxProcessor', visibilityTimeoutSeconds: 30, maxReceiveCount: 5 },
  // The sandbox payout rail's pending confirmations (shared/wallet/payouts/sandbox.ts).
  { name: 'sandboxPayoutRail', visibilityTimeoutSeconds: 30, maxReceiveCount: 5 },
  // Webhook delivery attempts (shared/wallet/webhooks/deliveries.ts). Receivers' failures are re-queued as
  // new messages with their backoff; only a worker that keeps crashing on a message spends receives.
  // The visibility timeout outlasts the worker (30 s) and the attempt claim (45 s).
  { name: 'webhookDeliveries', visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  // What requests record about access (API key last use, support access, cross-tenant reads),
  // written by authRecordAccess so request functions need no write grant (shared/wallet/access-records.ts).
  // Audit records among them: ten receives before the dead-letter queue (14 days, alarmed).
  { name: 'accessRecords', visibilityTimeoutSeconds: 30, maxReceiveCount: 10 },
  // IdP users first seen on a read route, provisioned by authProvisionIdpUsers (shared/wallet/auth/idp.ts).
  { name: 'idpFirstContact', visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
];

export const workers: readonly WorkerDefinition[] = [
  {
    name: 'ledgerExpirePendings',
    handler: 'ledger/expire-pendings',
    description: 'Voids pending postings whose expiry has passed',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { ledger: 'RW' },
  },
  {
    name: 'ledgerSweepShards',
    handler: 'ledger/sweep-shards',
    description: "Moves what sharded accounts' shards hold into each account's own item, so debits rarely sweep on demand",
    // Hourly: correctness never waits for it (a short debit sweeps on demand), and each run reads
    // every shard of every sharded account.
    trigger: { kind: 'schedule', rateMinutes: 60 },
    tables: { ledger: 'RW' },
  },
  {
    name: 'walletSweepOperations',
    handler: 'wallet/sweep-operations',
    description: 'Finishes money operations (transfers, top-ups) a crash left between the ledger posting and the wallet commit',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { wallet: 'RW' },
    callsLedger: true,
    // Resuming a top-up's (or a payout's) creation queues the sandbox's confirmation.
    sendsTo: ['sandboxProcessor', 'sandboxPayoutRail'],
  },
  {
    name: 'sandboxProcessor',
    handler: 'topups/sandbox-processor',
    description: "Sends the sandbox top-up processor's signed confirmations to the wallet's public webhook",
    trigger: { kind: 'queue', queue: 'sandboxProcessor', batchSize: 10 },
    // It reaches the wallet only over HTTP, as an outside processor would.
    tables: {},
    timeoutSeconds: 15,
  },
  {
    name: 'sandboxPayoutRail',
    handler: 'payouts/sandbox-rail',
    description: "Sends the sandbox payout rail's signed confirmations to the wallet's public rail webhook",
    trigger: { kind: 'queue', queue: 'sandboxPayoutRail', batchSize: 10 },
    // It reaches the wallet only over HTTP, as an outside rail would.
    tables: {},
    timeoutSeconds: 15,
  },
  {
    name: 'eventsRelay',
    handler: 'events/relay',
    description: 'Outbox relay: publishes new events to the EventBridge bus and queues one webhook delivery per receiving endpoint',
    // New events, and the delivery records it queues (manual redeliveries, re-armed rounds).
    trigger: { kind: 'stream', table: 'wallet', batchSize: 25, filters: [{ dynamodb: { NewImage: { entity: { S: ['event', 'webhook_delivery'] } } } }] },
    tables: { wallet: 'RW' },
    publishesEvents: true,
    sendsTo: ['webhookDeliveries'],
  },
  {
    name: 'webhookDeliver',
    handler: 'webhooks/deliver',
    description: 'Makes one signed webhook delivery attempt per message and schedules the retry of a failed one',
    trigger: { kind: 'queue', queue: 'webhookDeliveries', batchSize: 10 },
    tables: { wallet: 'RW' },
    // Retries go back to the same queue, delayed.
    sendsTo: ['webhookDeliveries'],
    // A batch's attempts run in parallel, each bounded by the 10 s delivery timeout.
    timeoutSeconds: 30,
  },
  {
    name: 'paymentsExpireHolds',
    handler: 'payments/expire-holds',
    description: 'Voids payment authorizations whose hold has passed (status expired, payment.expired once)',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { wallet: 'RW' },
    callsLedger: true,
  },
  {
    name: 'subscriptionsChargeDue',
    handler: 'subscriptions/charge-due',
    description: 'Charges every subscription period or dunning retry that is due, each try once (ledger keys by subscription, period and try)',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { wallet: 'RW' },
    callsLedger: true,
  },
  {
    name: 'subscriptionsRetryOnCredit',
    handler: 'subscriptions/retry-on-credit',
    description: "Makes a credited payer's past-due subscriptions due now, so dunning retries within a minute of a top-up or transfer",
    // Only the events that credit a user.
    trigger: {
      kind: 'stream',
      table: 'wallet',
      batchSize: 25,
      filters: [{ dynamodb: { NewImage: { entity: { S: ['event'] }, envelope: { M: { type: { S: ['topup.succeeded', 'transfer.completed'] } } } } } }],
    },
    tables: { wallet: 'RW' },
  },
  {
    name: 'walletReconcileLedgers',
    handler: 'reconciliation/reconcile-ledgers',
    description: "Matches every tenant's ledger transactions to the wallet records that explain them and back, lists orphans past the grace, writes their count",
    // Each run goes on from its marks; five minutes is the grace an orphan waits anyway.
    trigger: { kind: 'schedule', rateMinutes: 5 },
    tables: { wallet: 'RW' },
    callsLedger: true,
    // A run stops starting work at 240 s (shared/wallet/reconciliation/reconcile.ts RUN_BUDGET_MS).
    timeoutSeconds: 300,
    alarms: [{ metric: 'ReconciliationOrphans', above: 0, description: 'Money without its record, or a record without its money: GET /v1/ledger/reconciliation lists them (docs/reconciliation.md)' }],
  },
  {
    name: 'authRecordAccess',
    handler: 'auth/record-access',
    description: 'Writes the access records requests queue: API key last use, support engineers\' requests under a grant, cross-tenant reads',
    trigger: { kind: 'queue', queue: 'accessRecords', batchSize: 10 },
    tables: { wallet: 'RW' },
    timeoutSeconds: 15,
  },
  {
    name: 'authProvisionIdpUsers',
    handler: 'auth/provision-idp-users',
    description: 'Creates the wallet user and its ledger account of an IdP user first seen on a read route',
    trigger: { kind: 'queue', queue: 'idpFirstContact', batchSize: 5 },
    tables: { wallet: 'RW' },
    callsLedger: true,
    timeoutSeconds: 30,
  },
  {
    name: 'ordersExpire',
    handler: 'orders/expire-orders',
    description: 'Expires open orders past their hold and releases their stock (order.expired once)',
    trigger: { kind: 'schedule', rateMinutes: 1 },
    tables: { wallet: 'RW' },
  },
];

/** The env var a function reads a queue's URL from. */
export const queueUrlEnv = (queue: string): string => `QUEUE_URL_${queue.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/** A worker function's timeout unless it names one (the stacks and the embedded platform's drivers both use it). */
export const WORKER_TIMEOUT_SECONDS = 60;
