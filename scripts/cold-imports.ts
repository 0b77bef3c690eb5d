import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/**
 * Cold imports of Lambda bundles, measured as Lambda pays them: a fresh Node.js process imports
 * dist/<handler>/index.mjs once; the import's wall time and the CPU time the process spent on it
 * are read around the `import()`. Medians over several fresh processes. `npm run bench:cold` prints
 * them for every function beside its SDK reference bundle; nothing in `npm test` measures a time
 * (a time moves with the host), only sizes (`bundlesOverBudget`).
 */

const run = promisify(execFile);

let node: { path: string; version: string } | undefined;

/** Puts a Node.js major first on PATH (`npm run test:lambda-node` runs the suite through it). */
const WITH_NODE = join(dirname(fileURLToPath(import.meta.url)), 'with-node.sh');

/**
 * The Node.js that imports the bundles. `BENCH_NODE` names it: a binary's path, or a major version
 * (`BENCH_NODE=24`, the major of the Lambda runtime docs/decisions.md names), which scripts/with-node.sh
 * fetches once from the npm registry. Unset, this process's own Node.
 */
export function importingNode(): { path: string; version: string } {
  if (node) return node;
  const chosen = process.env.BENCH_NODE?.trim();
  try {
    const path = !chosen ? process.execPath : /^\d+$/.test(chosen) ? execFileSync('sh', [WITH_NODE, chosen, 'node', '-p', 'process.execPath'], { encoding: 'utf8' }).trim() : chosen;
    node = { path, version: execFileSync(path, ['--version'], { encoding: 'utf8' }).trim() };
  } catch (error) {
    // As the benches' other settings (bench/measure.ts): the setting named, the run stopped.
    console.error(`BENCH_NODE: ${chosen} is neither a Node.js binary nor a major version npx can fetch (${(error as Error).message.split('\n')[0]})`);
    process.exit(2);
  }
  return node;
}

/**
 * What every function finds in its environment at import in AWS (lib/function.ts); the rest is
 * read on first use. The SDK's Node-version notice is off: Lambda runs Node 24, where it never
 * prints, and this machine's Node 20 would pay for printing it.
 */
const LAMBDA_ENV = { AWS_REGION: 'eu-west-1', GATEWAY_NAME: 'public', NODE_ENV: 'production', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

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
}

export const budgetFile = (root: string) => join(root, 'scripts', 'bundle-budget.json');
export const readBudget = (root: string): BundleBudget => JSON.parse(readFileSync(budgetFile(root), 'utf8')) as BundleBudget;

/** The functions whose bundle is over the budget's bytes, in name order. */
export const bundlesOverBudget = (sizes: Readonly<Record<string, number>>, budget: BundleBudget): string[] =>
  Object.keys(sizes)
    .filter((handler) => sizes[handler]! > budget.max_bytes)
    .sort();

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
  const { stdout } = await run(importingNode().path, ['--input-type=module', '-e', PROBE, file], { env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV }, timeout: 30_000 });
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

/**
 * Two bundles' medians over `runs` rounds of fresh processes, interleaved (a, b, a, b, ...), so a
 * slow spell of the host falls on both: a function and its reference bundle.
 */
export async function coldImportPair(files: readonly [string, string], runs: number): Promise<[{ wallMs: number; cpuMs: number }, { wallMs: number; cpuMs: number }]> {
  const samples: { wall: number; cpu: number }[][] = [[], []];
  for (let run = 0; run < runs; run += 1) {
    for (const [i, file] of files.entries()) samples[i]!.push(await timeOnce(pathToFileURL(file).href));
  }
  const medians = (list: { wall: number; cpu: number }[]) => ({ wallMs: round(median(list.map((s) => s.wall))), cpuMs: round(median(list.map((s) => s.cpu))) });
  return [medians(samples[0]!), medians(samples[1]!)];
}

export const round = (ms: number) => Math.round(ms * 10) / 10;
