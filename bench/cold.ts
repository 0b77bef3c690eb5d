/**
 * `npm run bench:cold`: every Lambda bundle's size and cold import, as Lambda pays it: bundles
 * (scripts/bundle.ts, into a temporary directory), then imports each function in fresh Node.js
 * processes one at a time (BENCH_RUNS, default the budget's import_runs) and prints the medians of the import's wall
 * and CPU time, the largest first, against scripts/bundle-budget.json. Writes JSON to bench/results/.
 * Wall time is the figure on a quiet machine; CPU time is what the budget's max_import_cpu_ms is
 * compared with, because it moves less when the machine is busy with other work. `npm test` holds
 * both through `npm run check:bundles` (docs/performance.md, "Bundles and cold imports").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, handlerEntries, repoRoot } from '../scripts/bundle';
import { coldImports, median, readBudget } from '../scripts/cold-imports';
import { benchSetting } from './measure';

const budget = readBudget(repoRoot);
const runs = benchSetting('BENCH_RUNS', budget.import_runs, { integer: true });
const outdir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
try {
  const { sizes } = await bundle({ outdir });
  const timings = await coldImports(outdir, handlerEntries(), runs);
  const rows = timings.map((timing) => ({ ...timing, kib: Math.round((sizes[timing.handler]! / 1024) * 10) / 10 })).sort((a, b) => b.kib - a.kib);
  const width = Math.max(...rows.map((row) => row.handler.length));
  console.log(`${'function'.padEnd(width)}  ${'KiB'.padStart(7)}  ${'wall ms'.padStart(8)}  ${'cpu ms'.padStart(7)}`);
  for (const row of rows) console.log(`${row.handler.padEnd(width)}  ${String(row.kib).padStart(7)}  ${String(row.wallMs).padStart(8)}  ${String(row.cpuMs).padStart(7)}`);
  const summary = {
    functions: rows.length,
    runs_per_function: runs,
    largest_kib: rows[0]!.kib,
    median_kib: median(rows.map((row) => row.kib)),
    slowest_wall_ms: Math.max(...rows.map((row) => row.wallMs)),
    median_wall_ms: median(rows.map((row) => row.wallMs)),
    slowest_cpu_ms: Math.max(...rows.map((row) => row.cpuMs)),
    over_bytes: rows.filter((row) => sizes[row.handler]! > budget.max_bytes).map((row) => row.handler),
    over_cpu_ms: rows.filter((row) => row.cpuMs > budget.max_import_cpu_ms).map((row) => row.handler),
  };
  console.log(
    `\n${summary.functions} functions: largest ${summary.largest_kib} KiB (median ${summary.median_kib}); import wall median ${summary.median_wall_ms} ms, slowest ${summary.slowest_wall_ms} ms; slowest CPU ${summary.slowest_cpu_ms} ms. ` +
      `Budget ${budget.max_bytes / 1024} KiB, ${budget.max_import_cpu_ms} ms: ${summary.over_bytes.length + summary.over_cpu_ms.length === 0 ? 'all within' : `over: ${[...summary.over_bytes, ...summary.over_cpu_ms].join(', ')}`}`,
  );
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `cold-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: { cpus: cpus().length, node: process.version }, summary, rows }, null, 2)}\n`);
  console.log(`-> ${file}`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
