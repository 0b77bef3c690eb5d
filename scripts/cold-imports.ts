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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function timeOnce(file: string): Promise<{ wall: number; cpu: number }> {
  // No inherited NODE_OPTIONS (tsx's loader, source maps): Lambda starts a plain node.
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, file], { env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV }, timeout: 30_000 });
  return JSON.parse(stdout) as { wall: number; cpu: number };
}

/** Every handler's median over `runs` fresh processes, `parallel` processes at a time. */
export async function coldImports(outdir: string, handlers: readonly string[], options: { runs?: number; parallel?: number } = {}): Promise<ImportTiming[]> {
  const runs = options.runs ?? 5;
  const jobs = handlers.flatMap((handler) => Array.from({ length: runs }, () => handler));
  const samples = new Map<string, { wall: number; cpu: number }[]>();
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const handler = jobs[next++]!;
      const sample = await timeOnce(pathToFileURL(resolve(outdir, handler, 'index.mjs')).href);
      samples.set(handler, [...(samples.get(handler) ?? []), sample]);
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 1 }, worker));
  return handlers.map((handler) => {
    const taken = samples.get(handler) ?? [];
    return { handler, wallMs: round(median(taken.map((s) => s.wall))), cpuMs: round(median(taken.map((s) => s.cpu))) };
  });
}

const round = (ms: number) => Math.round(ms * 10) / 10;
