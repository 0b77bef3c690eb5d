import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { baseDimensions, METRIC, METRICS_NAMESPACE } from '../shared/kernel/metrics';
import type { ProjectApi } from './api';
import { RUNBOOK, withRunbook } from './runbook';
import type { ProjectTable } from './table';
import type { ProjectQueue, Workers } from './workers';

/**
 * What an operator watches (docs/runbook.md): alarms on every stack's gateways, tables, queues and
 * streams, each to the stage's alarm topic with its runbook section in its description, and one
 * dashboard per stage (built by the wallet stack, with the ledger's gateway and table passed in).
 */

const FIVE_MINUTES = Duration.minutes(5);

/** The thresholds (docs/decisions.md "Operations"). */
export const ALARM_THRESHOLDS = {
  /** Percent of a gateway's requests answered 5xx over 5 minutes. */
  api5xxPercent: 1,
  /** A gateway's p99 latency over 5 minutes, three periods running. */
  apiP99Ms: 1_000,
  /** Throttled Lambda invocations (region-wide) or DynamoDB throttle events per table in 5 minutes. */
  throttles: 10,
  /** A stream worker's iterator age: records waiting this long. */
  iteratorAgeMs: 60_000,
  /** A work queue's oldest message. */
  queueAgeSeconds: 300,
  /** Share of webhook attempts that failed over 15 minutes, once at least 20 were made. */
  webhookFailureRate: 0.5,
  webhookMinAttempts: 20,
} as const;

/**
 * The stage's alarm topic when the app is not given one (`-c alarmTopicArn=`): encrypted with a key
 * of its own that CloudWatch may use (alarms cannot publish to a topic under the AWS managed key),
 * TLS only.
 */
export class AlarmTopic extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: { stage: string }) {
    super(scope, id);
    const key = new kms.Key(this, 'Key', { description: `Alarm notifications of wallet-platform ${props.stage}`, enableKeyRotation: true });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', { displayName: `wallet-platform ${props.stage} alarms`, masterKey: key, enforceSSL: true });
  }
}

export interface GatewayWatch {
  /** The gateway's name (public, console, ledger). */
  name: string;
  api: ProjectApi;
}

export interface MonitoringProps {
  stage: string;
  alarmTopic: sns.ITopic;
  gateways: readonly GatewayWatch[];
  tables: readonly ProjectTable[];
  queues: readonly ProjectQueue[];
  workers: Workers;
  /** Only the wallet stack: the region-wide Lambda throttles alarm (one is enough) and the webhook failure rate. */
  lambdaThrottles?: boolean;
  /** The dashboard of the stage, with what other stacks hand in (the ledger's gateway and table). */
  dashboard?: { gateways: readonly GatewayWatch[]; tables: readonly ProjectTable[] };
}

/** A metric the platform writes (shared/kernel/metrics.ts), with the dimensions every point carries. */
export function platformMetric(stage: string, name: string, statistic: string, extra: Record<string, string> = {}, period = FIVE_MINUTES): cloudwatch.Metric {
  return new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { ...baseDimensions(stage), ...extra }, statistic, period });
}

/** Every metric of one name, whatever its extra dimensions (a dashboard search; alarms cannot use one). */
function searchOf(stage: string, name: string, dimensions: readonly string[], statistic: string, label: string): cloudwatch.MathExpression {
  const schema = ['service', 'Stage', ...dimensions].join(',');
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${schema}} MetricName="${name}" Stage="${stage}"', '${statistic}', 300)`,
    label,
    usingMetrics: {},
    period: FIVE_MINUTES,
  });
}

export class Monitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard | undefined;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const t = ALARM_THRESHOLDS;
    const add = (alarm: cloudwatch.Alarm) => {
      alarm.addAlarmAction(new actions.SnsAction(props.alarmTopic));
      this.alarms.push(alarm);
    };

    for (const { name, api } of props.gateways) {
      const errors = api.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum' });
      const count = api.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });
      add(
        new cloudwatch.Alarm(this, `${name}Api5xx`, {
          alarmDescription: withRunbook(`More than ${t.api5xxPercent}% of the ${name} gateway's requests answered 5xx over 5 minutes`, RUNBOOK.api5xx),
          metric: new cloudwatch.MathExpression({ expression: 'IF(requests > 0, 100 * errors / requests, 0)', usingMetrics: { errors, requests: count }, label: `${name} 5xx %`, period: FIVE_MINUTES }),
          threshold: t.api5xxPercent,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
      add(
        new cloudwatch.Alarm(this, `${name}ApiP99`, {
          alarmDescription: withRunbook(`The ${name} gateway's p99 latency stayed above ${t.apiP99Ms} ms for 15 minutes`, RUNBOOK.apiLatency),
          metric: api.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99' }),
          threshold: t.apiP99Ms,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 3,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    for (const { table, definition } of props.tables) {
      const throttled = new cloudwatch.MathExpression({
        expression: 'reads + writes',
        usingMetrics: {
          reads: table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
          writes: table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum' }),
        },
        label: `${definition.logicalId} throttle events`,
        period: FIVE_MINUTES,
      });
      add(
        new cloudwatch.Alarm(this, `${definition.logicalId}Throttles`, {
          alarmDescription: withRunbook(`DynamoDB throttled more than ${t.throttles} reads or writes of ${definition.logicalId} in 5 minutes`, RUNBOOK.tableThrottles),
          metric: throttled,
          threshold: t.throttles,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    if (props.lambdaThrottles) {
      add(
        new cloudwatch.Alarm(this, 'LambdaThrottles', {
          alarmDescription: withRunbook(`Lambda throttled more than ${t.throttles} invocations in 5 minutes (region-wide: concurrency is an account limit)`, RUNBOOK.lambdaThrottles),
          metric: new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', statistic: 'Sum', period: FIVE_MINUTES }),
          threshold: t.throttles,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    for (const [name, fn] of props.workers.streamFunctions) {
      add(
        new cloudwatch.Alarm(this, `${name}IteratorAge`, {
          alarmDescription: withRunbook(`Stream worker ${name} is more than ${t.iteratorAgeMs / 1000} s behind its table's stream`, RUNBOOK.iteratorAge),
          metric: fn.function.metric('IteratorAge', { period: FIVE_MINUTES, statistic: 'Maximum' }),
          threshold: t.iteratorAgeMs,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    for (const queue of props.queues) {
      add(
        new cloudwatch.Alarm(this, `${queue.definition.name}QueueAge`, {
          alarmDescription: withRunbook(`The oldest message of queue ${queue.definition.name} waited more than ${t.queueAgeSeconds} s`, RUNBOOK.queueAge),
          metric: queue.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum' }),
          threshold: t.queueAgeSeconds,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }

    // The workers' own alarms (dead letters, stream failures, metric alarms such as reconciliation orphans).
    for (const alarm of new Set(props.workers.alarms)) add(alarm);

    const stage = props.stage;
    const webhookAttempts = platformMetric(stage, METRIC.webhookAttempts, 'Sum', {}, Duration.minutes(15));
    const webhookFailures = platformMetric(stage, METRIC.webhookFailures, 'Sum', {}, Duration.minutes(15));
    if (props.lambdaThrottles) {
      add(
        new cloudwatch.Alarm(this, 'WebhookFailureRate', {
          alarmDescription: withRunbook(
            `More than ${t.webhookFailureRate * 100}% of webhook attempts failed over 15 minutes (at least ${t.webhookMinAttempts} attempts)`,
            RUNBOOK.webhookFailures,
          ),
          metric: new cloudwatch.MathExpression({
            expression: `IF(attempts >= ${t.webhookMinAttempts}, failures / attempts, 0)`,
            usingMetrics: { attempts: webhookAttempts, failures: webhookFailures },
            label: 'webhook failure rate',
            period: Duration.minutes(15),
          }),
          threshold: t.webhookFailureRate,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    if (props.dashboard) this.dashboard = this.buildDashboard(props, props.dashboard);
  }

  private buildDashboard(props: MonitoringProps, more: NonNullable<MonitoringProps['dashboard']>): cloudwatch.Dashboard {
    const stage = props.stage;
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { dashboardName: `wallet-platform-${stage}`, defaultInterval: Duration.hours(3) });
    const width = 8;
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) => new cloudwatch.GraphWidget({ title, left, right, width, height: 6 });
    const gateways = [...more.gateways, ...props.gateways];
    const tables = [...more.tables, ...props.tables];

    dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: `# wallet-platform ${stage}\nAlarms and what to do: docs/runbook.md. Metrics: namespace ${METRICS_NAMESPACE}, dimensions service and Stage.`, width: 24, height: 2 }));
    dashboard.addWidgets(
      ...gateways.map(({ name, api }) =>
        graph(
          `API ${name}: 4xx / 5xx`,
          [api.api.metricClientError({ period: FIVE_MINUTES, statistic: 'Sum', label: '4xx' }), api.api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum', label: '5xx' })],
          [api.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum', label: 'requests' })],
        ),
      ),
    );
    dashboard.addWidgets(
      ...gateways.map(({ name, api }) =>
        graph(`API ${name}: latency p50 / p99`, [
          api.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50', label: 'p50' }),
          api.api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99', label: 'p99' }),
        ]),
      ),
    );
    const stackFunctions = (metric: string, statistic: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{AWS/Lambda,FunctionName} MetricName="${metric}" "wallet-platform-${stage}"', '${statistic}', 300)`,
        label: metric,
        usingMetrics: {},
        period: FIVE_MINUTES,
      });
    dashboard.addWidgets(
      graph('Lambda errors (per function)', [stackFunctions('Errors', 'Sum')]),
      graph('Lambda throttles (per function)', [stackFunctions('Throttles', 'Sum')]),
      graph('Lambda concurrency', [new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'ConcurrentExecutions', statistic: 'Maximum', period: FIVE_MINUTES, label: 'region' }), stackFunctions('ConcurrentExecutions', 'Maximum')]),
    );
    dashboard.addWidgets(
      ...tables.map(({ table, definition }) =>
        graph(
          `DynamoDB ${definition.logicalId}: throttles / consumed capacity`,
          [table.metric('ReadThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum', label: 'read throttles' }), table.metric('WriteThrottleEvents', { period: FIVE_MINUTES, statistic: 'Sum', label: 'write throttles' })],
          [table.metricConsumedReadCapacityUnits({ period: FIVE_MINUTES, statistic: 'Sum', label: 'RCU' }), table.metricConsumedWriteCapacityUnits({ period: FIVE_MINUTES, statistic: 'Sum', label: 'WCU' })],
        ),
      ),
    );
    dashboard.addWidgets(
      graph('SQS: age of oldest message (s)', props.queues.map((q) => q.queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum', label: q.definition.name }))),
      graph('SQS: dead letters', props.queues.map((q) => q.deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: q.definition.name }))),
      graph('Streams: iterator age (ms)', [...props.workers.streamFunctions].map(([name, fn]) => fn.function.metric('IteratorAge', { period: FIVE_MINUTES, statistic: 'Maximum', label: name }))),
    );
    dashboard.addWidgets(
      graph('Requests and refusals (by route, by code)', [searchOf(stage, METRIC.refusals, ['Route', 'Code'], 'Sum', 'refusals')], [searchOf(stage, METRIC.requests, ['Route', 'StatusClass'], 'Sum', 'requests')]),
      graph('Money operations: completed / refused / resumed', [
        searchOf(stage, METRIC.moneyCompleted, ['Operation'], 'Sum', 'completed'),
        searchOf(stage, METRIC.moneyRefused, ['Operation', 'Code'], 'Sum', 'refused'),
        searchOf(stage, METRIC.moneyResumed, ['Operation'], 'Sum', 'resumed'),
      ]),
      graph('Ledger call latency p50 / p99 (ms)', [searchOf(stage, METRIC.ledgerLatency, ['Call', 'Outcome'], 'p99', 'p99'), searchOf(stage, METRIC.ledgerLatency, ['Call', 'Outcome'], 'p50', 'p50')]),
    );
    dashboard.addWidgets(
      graph('Outbox relay lag (ms)', [platformMetric(stage, METRIC.relayLag, 'p99', {}, FIVE_MINUTES).with({ label: 'p99' }), platformMetric(stage, METRIC.relayLag, 'Maximum').with({ label: 'max' })]),
      graph('Webhooks: attempts / failures, delivery lag', [platformMetric(stage, METRIC.webhookAttempts, 'Sum').with({ label: 'attempts' }), platformMetric(stage, METRIC.webhookFailures, 'Sum').with({ label: 'failures' }), searchOf(stage, METRIC.webhookFailures, ['Reason'], 'Sum', 'failures by reason')], [platformMetric(stage, METRIC.webhookDeliveryLag, 'p99').with({ label: 'delivery lag p99 (ms)' })]),
      graph('Orders, subscriptions, dunning', [
        platformMetric(stage, METRIC.orderHoldsExpired, 'Sum').with({ label: 'order holds expired' }),
        searchOf(stage, METRIC.subscriptionCharges, ['Outcome'], 'Sum', 'charges'),
        searchOf(stage, METRIC.dunningOutcomes, ['Outcome'], 'Sum', 'dunning'),
      ]),
    );
    dashboard.addWidgets(
      new cloudwatch.SingleValueWidget({ title: 'Reconciliation orphans (open, last run)', metrics: [platformMetric(stage, METRIC.reconciliationOrphans, 'Maximum')], width, height: 6 }),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 16, height: 6 }),
    );
    return dashboard;
  }
}
