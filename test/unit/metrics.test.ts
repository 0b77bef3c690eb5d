import { describe, expect, it } from 'vitest';
import { emfLine, METRICS_NAMESPACE } from '../../shared/kernel/metrics';

describe('metrics', () => {
  it('writes one Embedded Metric Format line: the namespace, the Stage dimension only, and the value under the metric name', () => {
    const line = emfLine({ name: 'ReconciliationOrphans', value: 3, unit: 'Count', at: new Date('2026-01-01T00:00:00.000Z') }, 'prod');
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trim()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      _aws: {
        Timestamp: Date.parse('2026-01-01T00:00:00.000Z'),
        CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['Stage']], Metrics: [{ Name: 'ReconciliationOrphans', Unit: 'Count' }] }],
      },
      Stage: 'prod',
      ReconciliationOrphans: 3,
    });
  });
});
