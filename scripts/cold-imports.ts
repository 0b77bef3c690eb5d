import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/**
 * Cold imports of Lambda bundles, measured as Lambda pays them: a fresh Node.js process imports
 * dist/<handler>/index.mjs once; the import's wall time and the CPU time the process spent on it
 * are read around the `import()`. Medians over several fresh processes. `npm run bench:cold` prints
 * them for every function against scripts/bundle-budget.json.
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
  // No inherited NODE_OPTIONS (tsx's loader, source maps): Lambda starts a plain node.
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, file], { env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV }, timeout: 30_000 });
  return JSON.parse(stdout) as { wall: number; cpu: number };
}

/** Every handler's median over `runs` fresh processes, one process at a time (two at once would time each other). */
export async function coldImports(outdir: string, handlers: readonly string[], runs: number): Promise<ImportTiming[]> {
  const timings: ImportTiming[] = [];
  for (const handler of handlers) {
    const samples: { wall: number; cpu: number }[] = [];
    for (let run = 0; run < runs; run += 1) samples.push(await timeOnce(pathToFileURL(resolve(outdir, handler, 'index.mjs')).href));
    timings.push({ handler, wallMs: round(median(samples.map((s) => s.wall))), cpuMs: round(median(samples.map((s) => s.cpu))) });
  }
  return timings;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
