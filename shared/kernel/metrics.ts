import { Metrics, MetricUnit as Units } from '@aws-lambda-powertools/metrics';
import { config } from './config';
import { logger, SERVICE_NAME } from './log';

/**
 * CloudWatch metrics through Powertools for AWS Lambda's Metrics, as Embedded Metric Format: JSON
 * lines on stdout that CloudWatch Logs turns into metrics of namespace `WalletPlatform` (no SDK
 * call, no extra permission). Every point carries the dimensions `service` and `Stage`, plus the
 * few low-cardinality ones it names (a route, a problem code, an operation kind, an outcome):
 * never a tenant, user or other id, since each distinct value is a metric of its own, billed and
 * kept apart. The catalogue of names is `METRIC` below; docs/runbook.md reads them.
 *
 * Each point is written at once, as a line of its own: its dimensions, timestamp and value are
 * added to the process's Metrics and published in one synchronous step (`recordMetric`), so points
 * of requests the embedded platform serves concurrently in one process never share a dimension set
 * (nothing can run between the adding and the publishing). Not `singleMetric()`, which builds a
 * Metrics instance per point: 49 µs of CPU a point against 10 (docs/performance-log.md). `logMetrics`
 * (./observability.ts) adds the cold-start metric and flushes anything buffered.
 * The embedded platform writes none unless METRICS=stdout.
 */

export const METRICS_NAMESPACE = 'WalletPlatform';

/** The metric names the platform writes, in one place (the dashboard, alarms and runbook use them). */
export const METRIC = {
  /** HTTP: every answered request (dimensions Route, Status class) and every refusal (Route, Code). */
  requests: 'Requests',
  refusals: 'Refusals',
  /** Money operations (dimension Operation, e.g. `transfer.create`): completed, refused (with Code), finished by the sweeper. */
  moneyCompleted: 'MoneyOperationsCompleted',
  moneyRefused: 'MoneyOperationsRefused',
  moneyResumed: 'MoneyOperationsResumed',
  /** The wallet's calls to the ledger API (dimension Call: posting, pending, read…), milliseconds. */
  ledgerLatency: 'LedgerCallLatency',
  /** Outbox relay: event committed to published, milliseconds, one point per event (its sample count is the events relayed). */
  relayLag: 'OutboxRelayLag',
  /** Webhooks: attempts, failed attempts (dimension Reason), and event creation to delivery, milliseconds. */
  webhookAttempts: 'WebhookAttempts',
  webhookFailures: 'WebhookFailures',
  webhookDeliveryLag: 'WebhookDeliveryLag',
  /** Orders whose stock hold expired; subscription charges (dimension Outcome: charged, canceled) and dunning outcomes (Outcome: retry_scheduled, paused). */
  orderHoldsExpired: 'OrderHoldsExpired',
  subscriptionCharges: 'SubscriptionCharges',
  dunningOutcomes: 'DunningOutcomes',
  /** Open reconciliation orphans after a run (docs/reconciliation.md). */
  reconciliationOrphans: 'ReconciliationOrphans',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];
export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';
export type Dimensions = Readonly<Record<string, string>>;

/** The dimensions every point carries (CloudWatch matches a metric by all of them). */
export const baseDimensions = (stage: string): Record<string, string> => ({ service: SERVICE_NAME, Stage: stage });

let instance: Metrics | undefined;

/** The process's Powertools Metrics, built on first use (what `logMetrics` is given). */
export function powertoolsMetrics(): Metrics {
  return (instance ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { Stage: config.STAGE },
    // Its own notices ("no application metrics to publish" after an invocation that wrote its
    // points at once) are not an operator's business: debug lines.
    logger: { debug: logger.debug, info: logger.debug, warn: logger.debug, error: logger.error },
  }));
}

export const metricsEnabled = (): boolean => config.METRICS === 'stdout';

/** Writes one metric point now (nothing when METRICS=off). Never throws: a metric never fails the work it measures. */
export function recordMetric(name: MetricName, unit: MetricUnit, value: number, dimensions: Dimensions = {}, at?: Date): void {
  if (!metricsEnabled()) return;
  const metrics = powertoolsMetrics();
  try {
    // One synchronous step (see the top of this file); publishing clears the point's metric,
    // dimensions and timestamp, leaving the default dimensions.
    if (Object.keys(dimensions).length > 0) metrics.addDimensions({ ...dimensions });
    if (at) metrics.setTimestamp(at);
    metrics.addMetric(name, Units[unit], value);
    metrics.publishStoredMetrics();
  } catch (error) {
    metrics.clearMetrics();
    metrics.clearDimensions();
    logger.warn('metric not written', { metric: name, error });
  }
}

/** Milliseconds since `start` (a `performance.now()` reading), as a latency point. */
export function recordLatency(name: MetricName, start: number, dimensions: Dimensions = {}): void {
  recordMetric(name, 'Milliseconds', Math.max(0, performance.now() - start), dimensions);
}
