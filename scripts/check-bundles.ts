/**
 * `npm run check:bundles`, a step of `npm test`: bundles every function (scripts/bundle.ts, into a
 * temporary directory) and fails, naming each function, when a bundle is over the budget's bytes or
 * its cold import over the budget's CPU time (scripts/bundle-budget.json; scripts/cold-imports.ts
 * for how an import is measured). `npm run bench:cold` prints every function's figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, handlerEntries, repoRoot } from './bundle';
import { coldImports, importsOverBudget, median, readBudget } from './cold-imports';

const budget = readBudget(repoRoot);
const outdir = mkdtempSync(join(tmpdir(), 'check-bundles-'));
const startedAt = performance.now();
try {
  const { sizes } = await bundle({ outdir });
  const handlers = handlerEntries();
  const overBytes = handlers.filter((handler) => sizes[handler]! > budget.max_bytes);
  const timings = await coldImports(outdir, handlers, budget.import_runs);
  const overTime = await importsOverBudget(outdir, timings, budget);

  const slowest = timings.reduce((a, b) => (b.cpuMs > a.cpuMs ? b : a));
  const largest = handlers.reduce((a, b) => (sizes[b]! > sizes[a]! ? b : a));
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(
    `check:bundles: ${handlers.length} functions in ${((performance.now() - startedAt) / 1000).toFixed(0)} s; ` +
      `largest ${largest} ${kib(sizes[largest]!)} (budget ${kib(budget.max_bytes)}); ` +
      `cold import CPU median ${median(timings.map((t) => t.cpuMs))} ms, slowest ${slowest.handler} ${slowest.cpuMs} ms ` +
      `(budget ${budget.max_import_cpu_ms} ms, median of ${budget.import_runs} fresh processes)`,
  );
  for (const handler of overBytes) console.error(`over budget: ${handler} is ${kib(sizes[handler]!)}, more than ${kib(budget.max_bytes)}`);
  for (const { handler, cpuMs } of overTime) {
    console.error(`over budget: ${handler} imports in ${cpuMs.join(', then ')} ms of CPU (medians of ${budget.import_runs}), more than ${budget.max_import_cpu_ms} ms`);
  }
  if (overBytes.length + overTime.length > 0) process.exitCode = 1;
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
