/**
 * `npm run check:bundles`, a step of `npm test`: bundles every function (scripts/bundle.ts, into a
 * temporary directory) and fails, naming each function, when a bundle is over the budget's bytes
 * (scripts/bundle-budget.json). Deterministic: no time is measured here; `npm run bench:cold`
 * prints each function's cold import against its SDK reference bundle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle, handlerEntries, repoRoot } from './bundle';
import { bundlesOverBudget, readBudget } from './cold-imports';

const budget = readBudget(repoRoot);
const outdir = mkdtempSync(join(tmpdir(), 'check-bundles-'));
try {
  const { sizes } = await bundle({ outdir });
  const handlers = handlerEntries();
  const over = bundlesOverBudget(sizes, budget);
  const largest = handlers.reduce((a, b) => (sizes[b]! > sizes[a]! ? b : a));
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  console.log(`check:bundles: ${handlers.length} functions; largest ${largest} ${kib(sizes[largest]!)} (budget ${kib(budget.max_bytes)})`);
  for (const handler of over) console.error(`over budget: ${handler} is ${kib(sizes[handler]!)}, more than ${kib(budget.max_bytes)}`);
  if (over.length > 0) process.exitCode = 1;
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
