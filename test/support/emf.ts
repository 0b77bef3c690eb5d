import { expect } from 'vitest';
import { METRICS_NAMESPACE } from '../../shared/kernel/metrics';

/**
 * The CloudWatch EMF lines the embedded platform writes on stdout under `METRICS=stdout`, read as
 * CloudWatch would read them: each line's metrics with its dimension set.
 */

export interface EmfPoint {
  name: string;
  value: number;
  /** The dimension set's names with this line's values. */
  dimensions: Record<string, string>;
  /** The metric's unit as the line declares it. */
  unit: string | undefined;
}

export interface EmfCapture {
  /** Every point written since `captureEmf()`. */
  points(): EmfPoint[];
  /** The points of one metric whose dimensions include these. */
  named(name: string, dimensions?: Record<string, string>): EmfPoint[];
  /** Puts process.stdout.write back. */
  restore(): void;
}

/** Takes the EMF lines off this process's stdout (everything else still goes through). */
export function captureEmf(): EmfCapture {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.includes('"_aws"')) {
      lines.push(...text.split('\n').filter(Boolean));
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;

  const points = (): EmfPoint[] =>
    lines.flatMap((line) => {
      const emf = JSON.parse(line) as Record<string, any>;
      return (emf._aws.CloudWatchMetrics as { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit?: string }[] }[]).flatMap((set) => {
        expect(set.Namespace).toBe(METRICS_NAMESPACE);
        const dimensions = Object.fromEntries(set.Dimensions[0]!.map((name) => [name, String(emf[name])]));
        return set.Metrics.map(({ Name, Unit }) => ({ name: Name, value: Number(emf[Name]), dimensions, unit: Unit }));
      });
    });
  const named = (name: string, dimensions: Record<string, string> = {}) =>
    points().filter((point) => point.name === name && Object.entries(dimensions).every(([key, value]) => point.dimensions[key] === value));
  return { points, named, restore: () => (process.stdout.write = write) };
}
