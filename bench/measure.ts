import { readFileSync } from 'node:fs';

/**
 * A benchmark setting from the environment: a positive number (a whole one when `integer`), or
 * `fallback` when unset. Anything else stops the run and says what was wrong, instead of
 * measuring nothing at concurrency NaN.
 */
export function benchSetting(name: string, fallback: number, options: { integer?: boolean } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return positive(name, raw, options.integer ?? false);
}

/** A comma-separated list of whole positive numbers (`1,8,32`); set but empty, an empty list. */
export function benchSettingList(name: string, fallback: readonly number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined) return [...fallback];
  return raw.split(',').map((part) => part.trim()).filter(Boolean).map((part) => positive(name, part, true));
}

function positive(name: string, raw: string, integer: boolean): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    console.error(`${name}: ${raw} is not a positive ${integer ? 'whole number' : 'number'}`);
    process.exit(2);
  }
  return value;
}

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
  /** The same, for each round's stretch (measureInterleaved): what one round differs from the next. */
  rounds_per_second: number[];
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

/** What one stretch of closed-loop workers saw; stretches of one case add up. */
interface Sample {
  latencies: number[];
  errors: number;
  elapsedSeconds: number;
  nodeCpuMs: number;
  machineCpuMs: number | undefined;
}

/** `concurrency` closed-loop workers calling `operation` for `seconds`. */
async function sampleFor(concurrency: number, operation: (worker: number) => Promise<boolean>, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  const cpuStart = process.cpuUsage();
  const machineStart = machineBusyMs();
  const start = performance.now();
  const end = Date.now() + seconds * 1000;
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
  const elapsedSeconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const machineEnd = machineBusyMs();
  return {
    latencies,
    errors,
    elapsedSeconds,
    nodeCpuMs: (cpu.user + cpu.system) / 1000,
    machineCpuMs: machineStart !== undefined && machineEnd !== undefined ? machineEnd - machineStart : undefined,
  };
}

/** Successful calls during a warm-up of `seconds`, which figures leave out. */
async function warmUp(concurrency: number, operation: (worker: number) => Promise<boolean>, seconds: number): Promise<number> {
  const end = Date.now() + seconds * 1000;
  let accepted = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (Date.now() < end) if (await operation(w)) accepted += 1;
    }),
  );
  return accepted;
}

function figuresOf(name: string, concurrency: number, samples: Sample[], warmupAccepted: number): Figures {
  const latencies = samples.flatMap((sample) => sample.latencies).sort((a, b) => a - b);
  const errors = samples.reduce((sum, sample) => sum + sample.errors, 0);
  const elapsed = samples.reduce((sum, sample) => sum + sample.elapsedSeconds, 0);
  const nodeCpuMs = samples.reduce((sum, sample) => sum + sample.nodeCpuMs, 0);
  const machineCpuMs = samples.every((sample) => sample.machineCpuMs !== undefined) ? samples.reduce((sum, sample) => sum + sample.machineCpuMs!, 0) : undefined;
  const accepted = Math.max(1, latencies.length - errors);
  const perOp = (ms: number) => Number((ms / accepted).toFixed(2));
  const at = (q: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(1));
  return {
    case: name,
    concurrency,
    operations: latencies.length,
    errors,
    warmup_accepted: warmupAccepted,
    per_second: Number(((latencies.length - errors) / elapsed).toFixed(1)),
    rounds_per_second: samples.map((sample) => Number(((sample.latencies.length - sample.errors) / sample.elapsedSeconds).toFixed(1))),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    node_cpu_ms_per_op: perOp(nodeCpuMs),
    ...(machineCpuMs === undefined ? {} : { machine_cpu_ms_per_op: perOp(machineCpuMs) }),
  };
}

export interface Timing {
  /** Measured seconds per case, split evenly over the rounds. */
  seconds: number;
  warmupSeconds: number;
  /** Rounds per comparison (default 1): see measureInterleaved. */
  rounds?: number;
}

/**
 * Cases compared with each other (a ratio): each warmed up in turn, then measured in `rounds`
 * stretches of seconds/rounds, the order rotated every round (A B C, B C A, C A B), and each
 * case's stretches pooled. Measured one after another, the first case ran on a colder JVM and
 * every case on whatever the host was doing in its own seconds: a 3-leg transfer measured last came
 * out cheaper than a 2-leg one measured before it.
 */
export async function measureInterleaved(cases: { name: string; operation: (worker: number) => Promise<boolean> }[], concurrency: number, options: Timing): Promise<Figures[]> {
  const rounds = Math.max(1, options.rounds ?? 1);
  const warmups: number[] = [];
  for (const entry of cases) warmups.push(await warmUp(concurrency, entry.operation, options.warmupSeconds));
  const samples: Sample[][] = cases.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (let step = 0; step < cases.length; step += 1) {
      const index = (round + step) % cases.length;
      samples[index]!.push(await sampleFor(concurrency, cases[index]!.operation, options.seconds / rounds));
    }
  }
  return cases.map((entry, index) => figuresOf(entry.name, concurrency, samples[index]!, warmups[index]!));
}

/** The rate of one case over another's, to two places (0.68). */
export const ratioOf = (numerator: Figures, denominator: Figures): number => Number((numerator.per_second / denominator.per_second).toFixed(2));

/**
 * `0.68 (rounds 0.65–0.71)`: the pooled ratio of two interleaved cases, and the lowest and highest
 * ratio of one round's two stretches, measured minutes apart at most: how far one run can be trusted.
 */
export function ratioWithRounds(numerator: Figures, denominator: Figures): string {
  const pooled = ratioOf(numerator, denominator).toFixed(2);
  const rounds = numerator.rounds_per_second.map((rate, round) => rate / (denominator.rounds_per_second[round] ?? Number.NaN)).filter(Number.isFinite);
  if (rounds.length < 2) return pooled;
  return `${pooled} (rounds ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)})`;
}

/** `cpu/op node 1.2 ms, machine 4.8 ms`: where an operation's CPU goes (the rest of the machine is mostly DynamoDB Local). */
export const cpuPerOp = (f: Figures): string =>
  `cpu/op node ${f.node_cpu_ms_per_op.toFixed(2)} ms${f.machine_cpu_ms_per_op === undefined ? '' : `, machine ${f.machine_cpu_ms_per_op.toFixed(2)} ms`}`;
