import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../lib/monitoring';
import { RUNBOOK, RUNBOOK_FILE } from '../../lib/runbook';
import { SCHEDULED_FAILING_MINUTES } from '../../lib/workers';
import { METRIC, METRICS_NAMESPACE } from '../../shared/kernel/metrics';
import { queues, workers } from '../../shared/workers';
import { allTemplates, resourcesOfType, synthesize, type CfnResource, type Synthesized } from './support';

let synth: Synthesized;
let alarms: [string, CfnResource][];
let topics: [string, CfnResource][];
beforeAll(() => {
  synth = synthesize();
  alarms = [...allTemplates(synth.stacks.ledger), ...allTemplates(synth.stacks.wallet)].flatMap((t) => resourcesOfType(t, 'AWS::CloudWatch::Alarm'));
  topics = allTemplates(synth.stacks.ledger).flatMap((t) => resourcesOfType(t, 'AWS::SNS::Topic'));
});

const runbook = readFileSync(join(import.meta.dirname, '..', '..', RUNBOOK_FILE), 'utf8');
/** GitHub's anchors of the runbook's `##` headings. */
const anchors = new Set([...runbook.matchAll(/^## (.+)$/gm)].map(([, title]) => title!.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));
const description = (alarm: CfnResource) => String(alarm.Properties?.AlarmDescription);
const anchorOf = (alarm: CfnResource) => /Runbook: docs\/runbook\.md#([a-z0-9-]+)$/.exec(description(alarm))?.[1];
const withAnchor = (anchor: string) => alarms.filter(([, alarm]) => anchorOf(alarm) === anchor);
const metricsOf = (alarm: CfnResource): Record<string, any>[] => (alarm.Properties?.Metrics as Record<string, any>[] | undefined) ?? [];

describe('alarms', () => {
  it('every alarm names its runbook section, which docs/runbook.md has, and notifies the stage topic', () => {
    expect(alarms.length).toBeGreaterThan(10);
    expect(topics).toHaveLength(1);
    const [topicId] = topics[0]!;
    for (const [id, alarm] of alarms) {
      const anchor = anchorOf(alarm);
      expect(anchor, `${id}: ${description(alarm)}`).toBeDefined();
      expect(anchors.has(anchor!), `${RUNBOOK_FILE} has no section #${anchor}`).toBe(true);
      // The ledger's alarms ref its topic; the wallet's import it from the ledger stack.
      expect(JSON.stringify(alarm.Properties?.AlarmActions), id).toMatch(new RegExp(`${topicId}|ImportValue`));
    }
    // Each section of the runbook is some alarm's.
    for (const anchor of Object.values(RUNBOOK)) expect(withAnchor(anchor).length, anchor).toBeGreaterThan(0);
  });

  it('5xx rate and p99 latency on each of the three gateways', () => {
    expect(withAnchor(RUNBOOK.api5xx)).toHaveLength(3);
    for (const [, alarm] of withAnchor(RUNBOOK.api5xx)) {
      expect(alarm.Properties).toMatchObject({ Threshold: ALARM_THRESHOLDS.api5xxPercent, ComparisonOperator: 'GreaterThanThreshold' });
      expect(metricsOf(alarm).map((m) => m.MetricStat?.Metric?.MetricName).filter(Boolean).sort()).toEqual(['5XXError', 'Count']);
    }
    expect(withAnchor(RUNBOOK.apiLatency).map(([, a]) => [a.Properties?.MetricName, a.Properties?.ExtendedStatistic, a.Properties?.Threshold])).toEqual(
      Array(3).fill(['Latency', 'p99', ALARM_THRESHOLDS.apiP99Ms]),
    );
  });

  it('throttles: Lambda (region-wide) once, DynamoDB per table', () => {
    expect(withAnchor(RUNBOOK.lambdaThrottles).map(([, a]) => [a.Properties?.Namespace, a.Properties?.MetricName])).toEqual([['AWS/Lambda', 'Throttles']]);
    const tables = withAnchor(RUNBOOK.tableThrottles).map(([, a]) => metricsOf(a).map((m) => m.MetricStat?.Metric?.MetricName).filter(Boolean).sort());
    expect(tables).toEqual([
      ['ReadThrottleEvents', 'WriteThrottleEvents'],
      ['ReadThrottleEvents', 'WriteThrottleEvents'],
    ]);
  });

  it('iterator age per stream worker, queue age and dead letters per queue, stream failures per stream worker', () => {
    const streamWorkers = workers.filter((w) => w.trigger.kind === 'stream');
    expect(withAnchor(RUNBOOK.iteratorAge).map(([, a]) => a.Properties?.MetricName)).toEqual(streamWorkers.map(() => 'IteratorAge'));
    expect(withAnchor(RUNBOOK.queueAge).map(([, a]) => a.Properties?.MetricName)).toEqual(queues.map(() => 'ApproximateAgeOfOldestMessage'));
    expect(withAnchor(RUNBOOK.deadLetters)).toHaveLength(queues.length);
    expect(withAnchor(RUNBOOK.streamFailures)).toHaveLength(streamWorkers.length);
  });

  it('errors of every scheduled worker, once it failed every run for SCHEDULED_FAILING_MINUTES (5; two runs of a slower one)', () => {
    const templates = [...allTemplates(synth.stacks.ledger), ...allTemplates(synth.stacks.wallet)];
    const scheduled = workers.flatMap((w) => (w.trigger.kind === 'schedule' ? [{ name: w.name, handler: w.handler, rate: w.trigger.rateMinutes }] : []));
    expect(scheduled.length).toBeGreaterThan(0);
    expect(SCHEDULED_FAILING_MINUTES).toBe(5);
    expect(withAnchor(RUNBOOK.scheduledWorkerErrors)).toHaveLength(scheduled.length);
    for (const worker of scheduled) {
      const found = templates.flatMap((t) => resourcesOfType(t, 'AWS::CloudWatch::Alarm').filter(([, a]) => description(a).startsWith(`Scheduled worker ${worker.name} failed`)).map(([, a]) => ({ template: t, alarm: a })));
      expect(found, worker.name).toHaveLength(1);
      const { template, alarm } = found[0]!;
      const periods = Math.max(2, Math.ceil(SCHEDULED_FAILING_MINUTES / worker.rate));
      expect(alarm.Properties, worker.name).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Statistic: 'Sum',
        Period: worker.rate * 60,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: periods,
        DatapointsToAlarm: periods,
        TreatMissingData: 'notBreaching',
      });
      // On the worker's own function.
      const dimension = (alarm.Properties?.Dimensions as { Name: string; Value: { Ref: string } }[]).find((d) => d.Name === 'FunctionName')!;
      const fn = template.Resources[dimension.Value.Ref]!;
      expect(fn.Type).toBe('AWS::Lambda::Function');
      expect(String(fn.Properties?.Description)).toContain(`(${worker.handler})`);
    }
  });

  it('webhook failure rate: failures over attempts (EMF), once enough attempts were made', () => {
    const [[, alarm]] = withAnchor(RUNBOOK.webhookFailures) as [[string, CfnResource]];
    const used = metricsOf(alarm).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
    expect(used.map((m) => [m.Namespace, m.MetricName]).sort()).toEqual([
      [METRICS_NAMESPACE, METRIC.webhookAttempts],
      [METRICS_NAMESPACE, METRIC.webhookFailures],
    ]);
    expect(used[0].Dimensions).toEqual([
      { Name: 'Stage', Value: 'test' },
      { Name: 'service', Value: 'wallet-platform' },
    ]);
    expect(JSON.stringify(metricsOf(alarm))).toContain(`attempts >= ${ALARM_THRESHOLDS.webhookMinAttempts}`);
  });

  it('any reconciliation orphan (the worker alarm on ReconciliationOrphans)', () => {
    expect(withAnchor(RUNBOOK.reconciliationOrphans).map(([, a]) => [a.Properties?.MetricName, a.Properties?.Threshold])).toEqual([[METRIC.reconciliationOrphans, 0]]);
  });
});

describe('dashboard', () => {
  it('one per stage, in the wallet stack, with every widget the runbook points to', () => {
    const dashboards = allTemplates(synth.stacks.wallet).flatMap((t) => resourcesOfType(t, 'AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    expect(dashboards[0]![1].Properties?.DashboardName).toBe('wallet-platform-test');
    const body = JSON.stringify(dashboards[0]![1].Properties?.DashboardBody);
    const titles = [
      'API public: 4xx / 5xx',
      'API console: 4xx / 5xx',
      'API ledger: 4xx / 5xx',
      'API ledger: latency p50 / p99',
      'Lambda errors (per function)',
      'Lambda throttles (per function)',
      'Lambda concurrency',
      'DynamoDB WalletTable: throttles / consumed capacity',
      'DynamoDB LedgerTable: throttles / consumed capacity',
      'SQS: age of oldest message (s)',
      'SQS: dead letters',
      'Streams: iterator age (ms)',
      'Requests and refusals (by route, by code)',
      'Money operations: completed / refused / resumed',
      'Ledger call latency p50 / p99 (ms)',
      'Outbox relay lag (ms)',
      'Webhooks: attempts / failures, delivery lag',
      'Orders, subscriptions, dunning',
      'Reconciliation orphans (open, last run)',
    ];
    for (const title of titles) {
      expect(body, title).toContain(title);
      const generic = title.replace(/^API (public|console|ledger)/, 'API <gateway>').replace(/^DynamoDB (WalletTable|LedgerTable)/, 'DynamoDB <table>');
      expect(runbook, `${RUNBOOK_FILE} points to the widget "${generic}"`).toContain(`"${generic}"`);
    }
    for (const name of Object.values(METRIC)) expect(body, name).toContain(name);
  });
});
