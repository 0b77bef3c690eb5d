import { config } from './config';

/**
 * CloudWatch metrics as Embedded Metric Format: one JSON line on stdout per metric, which
 * CloudWatch Logs turns into a metric of the function's log group (no SDK call, no extra
 * permission). Namespace `WalletPlatform`, one dimension: the stage. Never a tenant or another
 * id as a dimension: each distinct value is a metric of its own, billed and kept apart.
 * (Powertools Metrics replaces this once it is wired; the line it writes is the same format.)
 * The embedded platform writes none unless METRICS=stdout.
 */

export const METRICS_NAMESPACE = 'WalletPlatform';

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds';

export interface MetricPoint {
  name: string;
  value: number;
  unit: MetricUnit;
  /** When the value held; CloudWatch files the point under this time. */
  at: Date;
}

/** The EMF line of one metric point of the stage. Pure. */
export function emfLine(point: MetricPoint, stage: string): string {
  return `${JSON.stringify({
    _aws: {
      Timestamp: point.at.getTime(),
      CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['Stage']], Metrics: [{ Name: point.name, Unit: point.unit }] }],
    },
    Stage: stage,
    [point.name]: point.value,
  })}\n`;
}

/** Writes one metric point (nothing when METRICS=off). */
export function emitMetric(point: MetricPoint, write: (line: string) => void = (line) => process.stdout.write(line)): void {
  if (config.METRICS === 'off') return;
  write(emfLine(point, config.STAGE));
}
