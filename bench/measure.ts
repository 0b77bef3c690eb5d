/** Throughput and latency of one benchmark case: a warm-up, then `seconds` of closed-loop workers. */
export interface Figures {
  case: string;
  concurrency: number;
  operations: number;
  errors: number;
  /** Successful operations during the warm-up, which the figures leave out. */
  warmup_accepted: number;
  /** Successful operations per second. */
  per_second: number;
  p50_ms: number;
  p99_ms: number;
}

export async function measure(
  name: string,
  concurrency: number,
  operation: (worker: number) => Promise<boolean>,
  options: { seconds: number; warmupSeconds: number },
): Promise<Figures> {
  const warmupEnd = Date.now() + options.warmupSeconds * 1000;
  let warmupAccepted = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (Date.now() < warmupEnd) if (await operation(w)) warmupAccepted += 1;
    }),
  );
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = Date.now() + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (Date.now() < end) {
        const t0 = performance.now();
        const ok = await operation(w);
        latencies.push(performance.now() - t0);
        if (!ok) errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(1));
  return {
    case: name,
    concurrency,
    operations: latencies.length,
    errors,
    warmup_accepted: warmupAccepted,
    per_second: Number(((latencies.length - errors) / elapsed).toFixed(1)),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  };
}
