/**
 * The runbook's sections (docs/runbook.md), one per alarm: every alarm's description ends with
 * its anchor, so the notification an operator gets says where to read. test/infra/monitoring.test.ts
 * holds that each anchor is a heading of the runbook.
 */
export const RUNBOOK_FILE = 'docs/runbook.md';

export const RUNBOOK = {
  api5xx: 'api-5xx-rate',
  apiLatency: 'api-p99-latency',
  lambdaThrottles: 'lambda-throttles',
  tableThrottles: 'dynamodb-throttles',
  iteratorAge: 'stream-iterator-age',
  queueAge: 'queue-age',
  deadLetters: 'dead-letters',
  streamFailures: 'stream-failures',
  webhookFailures: 'webhook-failure-rate',
  reconciliationOrphans: 'reconciliation-orphans',
  scheduledWorkerErrors: 'scheduled-worker-errors',
} as const;

/** An alarm's description with its runbook section (CloudWatch keeps at most 1024 characters). */
export const withRunbook = (description: string, anchor: string): string => `${description}. Runbook: ${RUNBOOK_FILE}#${anchor}`.slice(0, 1024);
