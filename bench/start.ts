import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchSetting } from './measure';

/**
 * `npm run bench:start`: how long the local platform and its CLIs take, as a developer runs them
 * (through npm). Prints, as medians of BENCH_RUNS runs (default 3) with their lowest and highest:
 *   - `npm start` on a data folder that is kept, until it prints "Try: curl" (up, seeded, every
 *     API listening): cold = its bundle compiled first (node_modules/.cache/wallet-run/ emptied: the first start after a
 *     source changed), warm = the bundle current (every start after);
 *   - the first start of an empty data folder (seeding included), once, for comparison;
 *   - `npm start -- --help`, and each CLI: `--help`, and a real call against the running platform.
 * The load average is printed beside them: on a shared machine it moves the figures most.
 * Writes JSON to bench/results/start.json. No test measures a time (docs/performance.md).
 */

const ROOT = resolve(import.meta.dirname, '..');
const runs = benchSetting('BENCH_RUNS', 3, { integer: true });
const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
// LOG_LEVEL unset, as in a developer's shell.
const { LOG_LEVEL: _unset, ...inherited } = process.env;
const env = { ...inherited, DATA_DIR: dataDir, PORT: '0', LEDGER_PORT: '0', CONSOLE_PORT: '0', OIDC_PORT: '0' };

const seconds = (ms: number) => Number((ms / 1000).toFixed(2));

interface Summary {
  median_s: number;
  min_s: number;
  max_s: number;
  runs: number;
}

function summary(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median_s: seconds(sorted[Math.floor((sorted.length - 1) / 2)]!), min_s: seconds(sorted[0]!), max_s: seconds(sorted.at(-1)!), runs: sorted.length };
}

/** `npm start` until it is up; resolves the time and a stop function (Ctrl-C, waits for the exit). */
async function timeStart(): Promise<{ ms: number; stop: () => Promise<void> }> {
  const started = performance.now();
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  while (!output.includes('Try: curl')) {
    if (child.exitCode !== null) throw new Error(`npm start failed:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const ms = performance.now() - started;
  return {
    ms,
    stop: async () => {
      // npm and the platform are one process group: Ctrl-C reaches both, as in a terminal.
      process.kill(-child.pid!, 'SIGINT');
      await exited;
    },
  };
}

function timeCommand(args: string[]): number {
  const started = performance.now();
  const result = spawnSync('npm', args, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const load = () => loadavg()[0]!.toFixed(2);
const rows: [string, Summary | number, string][] = [];
const report = (what: string, value: Summary | number) => {
  const line = typeof value === 'number' ? `${seconds(value)} s` : `${value.median_s} s (${value.min_s}-${value.max_s}, ${value.runs} runs)`;
  rows.push([what, value, load()]);
  console.log(`${what.padEnd(58)} ${line.padEnd(28)} load ${load()}`);
};

try {
  console.log(`bench:start on ${process.platform}, Node ${process.version}, data in ${dataDir}`);
  // The first start of an empty folder (seeding), with the bundle as it is.
  const first = await timeStart();
  await first.stop();
  report('npm start, empty data folder (first start, seeding)', first.ms);

  const cold: number[] = [];
  const warm: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    rmSync(join(ROOT, 'node_modules', '.cache', 'wallet-run', 'local+main'), { recursive: true, force: true });
    const c = await timeStart();
    await c.stop();
    cold.push(c.ms);
    const w = await timeStart();
    await w.stop();
    warm.push(w.ms);
  }
  report('npm start, data kept, cold (bundle compiled first)', summary(cold));
  report('npm start, data kept, warm (bundle current)', summary(warm));
  report('npm start -- --help', summary(Array.from({ length: runs }, () => timeCommand(['start', '--', '--help']))));

  const clis = ['staff', 'ledger:consumers', 'dev:token', 'dev:env', 'webhooks:listen', 'trigger', 'reset', 'smoke', 'dev:rotate-signing-key'];
  for (const cli of clis) {
    // Compiled once before (a first call after an edit compiles it), then measured.
    timeCommand(['run', '--silent', cli, '--', '--help']);
    report(`npm run ${cli} -- --help`, summary(Array.from({ length: runs }, () => timeCommand(['run', '--silent', cli, '--', '--help']))));
  }

  // Real calls, against the running platform.
  const up = await timeStart();
  try {
    const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { demo_tenant: { api_key: string } };
    const state = JSON.parse(readFileSync(join(dataDir, 'platform.json'), 'utf8')) as { urls: { public: string } };
    const calls: [string, string[]][] = [
      ['npm run staff -- list', ['run', '--silent', 'staff', '--', 'list']],
      ['npm run ledger:consumers -- list', ['run', '--silent', 'ledger:consumers', '--', 'list']],
      ['npm run dev:token -- --client bench', ['run', '--silent', 'dev:token', '--', '--client', 'bench']],
      ['npm run dev:env', ['run', '--silent', 'dev:env']],
      ['npm run trigger -- fee_plan.set', ['run', '--silent', 'trigger', '--', 'fee_plan.set']],
      ['npm run smoke -- --url <local> --api-key <demo key>', ['run', '--silent', 'smoke', '--', '--url', state.urls.public, '--api-key', bootstrap.demo_tenant.api_key]],
    ];
    for (const [what, args] of calls) report(what, summary(Array.from({ length: runs }, () => timeCommand(args))));
  } finally {
    await up.stop();
  }

  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'start.json'), `${JSON.stringify({ at: new Date().toISOString(), node: process.version, runs, figures: rows.map(([what, value, loadAverage]) => ({ what, ...(typeof value === 'number' ? { s: seconds(value) } : value), load: Number(loadAverage) })) }, null, 2)}\n`);
  console.log(`written to ${join(dir, 'start.json')}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
