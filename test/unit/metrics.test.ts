import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The configuration is read on first use: the stage and the switch are set before anything reads it.
process.env.STAGE = 'prod';
process.env.METRICS = 'stdout';
const { METRIC, METRICS_NAMESPACE, recordMetric } = await import('../../shared/kernel/metrics');

let lines: string[] = [];
const write = process.stdout.write.bind(process.stdout);
beforeEach(() => {
  lines = [];
  process.stdout.write = ((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
});
afterEach(() => {
  process.stdout.write = write;
});

describe('metrics (Powertools Metrics, EMF)', () => {
  it('writes one Embedded Metric Format line per point: the namespace, service and Stage, the point\'s own dimensions, its time', () => {
    recordMetric(METRIC.reconciliationOrphans, 'Count', 3, {}, new Date(Date.now() - 60_000));
    recordMetric(METRIC.refusals, 'Count', 1, { Route: 'createTransfer', Code: 'insufficient_funds' });
    const [orphans, refusal] = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(lines).toHaveLength(2);
    expect(orphans).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'Stage']], Metrics: [{ Name: 'ReconciliationOrphans', Unit: 'Count' }] }] },
      service: 'wallet-platform',
      Stage: 'prod',
      ReconciliationOrphans: 3,
    });
    expect(Math.abs(orphans!._aws.Timestamp - (Date.now() - 60_000))).toBeLessThan(5_000);
    expect(refusal).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'Stage', 'Route', 'Code']], Metrics: [{ Name: 'Refusals', Unit: 'Count' }] }] },
      Route: 'createTransfer',
      Code: 'insufficient_funds',
      Refusals: 1,
    });
  });

  it('never names a tenant, user or other id as a dimension: the catalogue of names is fixed', () => {
    expect(Object.values(METRIC).every((name) => /^[A-Z][A-Za-z]+$/.test(name))).toBe(true);
  });
});
