import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/**
 * Cold imports of Lambda bundles, measured as Lambda pays them: a fresh Node.js process imports
 * dist/<handler>/index.mjs once; the import's wall time and the CPU time the process spent on it
 * are read around the `import()`. Medians over several fresh processes. `npm run bench:cold` prints
 * them for every function; `npm run check:bundles` (a step of `npm test`) holds every function to
 * scripts/bundle-budget.json.
 */

const run = promisify(execFile);

/** What every function finds in its environment at import in AWS (lib/function.ts); the rest is read on first use. */
const LAMBDA_ENV = { AWS_REGION: 'eu-west-1', GATEWAY_NAME: 'public', NODE_ENV: 'production' };

/** Run in the child: time one import of argv[1], print `{wall, cpu}` in ms. */
const PROBE = [
  'const c0 = process.cpuUsage(); const t0 = performance.now();',
  'await import(process.argv[1]);',
  'const c = process.cpuUsage(c0);',
  'process.stdout.write(JSON.stringify({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 }));',
].join('\n');

export interface BundleBudget {
  /** Minified bytes of dist/<handler>/index.mjs, AWS SDK included. */
  max_bytes: number;
  /** The median CPU time of the import over `import_runs` fresh processes. */
  max_import_cpu_ms: number;
  import_runs: number;
  /** Further medians taken of a function found over max_import_cpu_ms before it is called over (see readBudget). */
  import_rechecks: number;
  /** The wait before each recheck: the host's slow spells last minutes, so rechecks are spread over them. */
  recheck_pause_ms: number;
}

export const budgetFile = (root: string) => join(root, 'scripts', 'bundle-budget.json');
export const readBudget = (root: string): BundleBudget => JSON.parse(readFileSync(budgetFile(root), 'utf8')) as BundleBudget;

export interface ImportTiming {
  handler: string;
  /** Medians in ms. */
  wallMs: number;
  cpuMs: number;
}

/** The middle value (the upper middle of an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function timeOnce(file: string): Promise<{ wall: number; cpu: number }> {
  // No inherited NODE_OPTIONS (tsx's loader): Lambda starts a plain node (lib/function.ts sets none).
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, file], { env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV }, timeout: 30_000 });
  return JSON.parse(stdout) as { wall: number; cpu: number };
}

/** One handler's medians over `runs` fresh processes, one process at a time (two at once would time each other). */
export async function coldImport(outdir: string, handler: string, runs: number): Promise<ImportTiming> {
  const samples: { wall: number; cpu: number }[] = [];
  for (let run = 0; run < runs; run += 1) samples.push(await timeOnce(pathToFileURL(resolve(outdir, handler, 'index.mjs')).href));
  return { handler, wallMs: round(median(samples.map((s) => s.wall))), cpuMs: round(median(samples.map((s) => s.cpu))) };
}

/** Every handler's medians, one handler after the other. */
export async function coldImports(outdir: string, handlers: readonly string[], runs: number): Promise<ImportTiming[]> {
  const timings: ImportTiming[] = [];
  for (const handler of handlers) timings.push(await coldImport(outdir, handler, runs));
  return timings;
}

export interface OverBudget {
  handler: string;
  /** Every median CPU time taken, the first and each recheck. */
  cpuMs: number[];
}

/**
 * The functions whose import is over budget. A function whose median is over is measured again,
 * up to `import_rechecks` more medians after every other function has been measured, each after
 * `recheck_pause_ms`, and is over only when every one of its medians is: the host taking CPU from
 * this machine only ever adds time, so a function that once imports within the budget is within
 * it, and one over it stays over.
 */
export async function importsOverBudget(outdir: string, timings: readonly ImportTiming[], budget: BundleBudget): Promise<OverBudget[]> {
  let over = timings.filter((timing) => timing.cpuMs > budget.max_import_cpu_ms).map((timing) => ({ handler: timing.handler, cpuMs: [timing.cpuMs] }));
  for (let recheck = 0; recheck < budget.import_rechecks && over.length > 0; recheck += 1) {
    await new Promise((resolve) => setTimeout(resolve, budget.recheck_pause_ms));
    for (const entry of over) entry.cpuMs.push((await coldImport(outdir, entry.handler, budget.import_runs)).cpuMs);
    over = over.filter((entry) => entry.cpuMs.at(-1)! > budget.max_import_cpu_ms);
  }
  return over;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
