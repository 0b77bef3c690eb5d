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

  it("gives each point only its own dimensions and time: nothing of a point, written or refused, carries over to the next", () => {
    recordMetric(METRIC.refusals, 'Count', 1, { Route: 'createTransfer', Code: 'insufficient_funds' }, new Date(Date.now() - 3_600_000));
    // A point Powertools refuses (not a number) is not written, and leaves its dimensions to no one.
    recordMetric(METRIC.requests, 'Count', 'one' as unknown as number, { Route: 'getTransfer', StatusClass: '2xx' });
    recordMetric(METRIC.moneyCompleted, 'Count', 1, { Operation: 'transfer.create' });
    const points = lines.map((line) => JSON.parse(line) as Record<string, any>);
    expect(points.map((point) => point._aws.CloudWatchMetrics[0].Dimensions)).toEqual([[['service', 'Stage', 'Route', 'Code']], [['service', 'Stage', 'Operation']]]);
    expect(points[1]).not.toHaveProperty('Route');
    expect(points[1]).not.toHaveProperty('StatusClass');
    // The hour-old time was the first point's alone.
    expect(Math.abs(points[0]!._aws.Timestamp - (Date.now() - 3_600_000))).toBeLessThan(5_000);
    expect(Math.abs(points[1]!._aws.Timestamp - Date.now())).toBeLessThan(5_000);
  });

  it('never names a tenant, user or other id as a dimension: the catalogue of names is fixed', () => {
    expect(Object.values(METRIC).every((name) => /^[A-Z][A-Za-z]+$/.test(name))).toBe(true);
  });
});
