import { readFileSync } from 'node:fs';

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
  /** CPU this process (the embedded platform and the load generator) spent per successful operation. */
  node_cpu_ms_per_op: number;
  /** CPU the whole machine spent per successful operation (DynamoDB Local's JVM included); absent off Linux. */
  machine_cpu_ms_per_op?: number;
}

/** Busy CPU time of the whole machine in ms (all cores), from /proc/stat; undefined where there is none. */
function machineBusyMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait, in clock ticks (100/s).
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
    return (user + nice + system + irq + softirq) * 10;
  } catch {
    return undefined;
  }
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
  const cpuStart = process.cpuUsage();
  const machineStart = machineBusyMs();
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
  const cpu = process.cpuUsage(cpuStart);
  const machineEnd = machineBusyMs();
  const accepted = Math.max(1, latencies.length - errors);
  const perOp = (ms: number) => Number((ms / accepted).toFixed(2));
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
    node_cpu_ms_per_op: perOp((cpu.user + cpu.system) / 1000),
    ...(machineStart !== undefined && machineEnd !== undefined ? { machine_cpu_ms_per_op: perOp(machineEnd - machineStart) } : {}),
  };
}

/** `cpu/op node 1.2 ms, machine 4.8 ms`: where an operation's CPU goes (the rest of the machine is mostly DynamoDB Local). */
export const cpuPerOp = (f: Figures): string =>
  `cpu/op node ${f.node_cpu_ms_per_op.toFixed(2)} ms${f.machine_cpu_ms_per_op === undefined ? '' : `, machine ${f.machine_cpu_ms_per_op.toFixed(2)} ms`}`;
