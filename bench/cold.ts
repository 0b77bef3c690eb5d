/**
 * `npm run bench:cold`: every Lambda bundle's size and cold import, as Lambda pays it, beside its
 * SDK reference. Bundles every function (scripts/bundle.ts, into a temporary directory) and, for
 * each set of AWS SDK clients a function carries, a reference bundle that imports only those
 * clients and the commands the platform sends of them, built the same way (split into chunks and
 * assembled as a function is) and loaded the same way (DynamoDB at import, as the store does; KMS,
 * Secrets Manager, SQS and EventBridge on first use, as shared/aws/kms.ts, secrets.ts, queue.ts and
 * bus.ts do). No function that calls these clients
 * can import faster than its reference: it is the SDK's floor. Then each function and its
 * reference are imported in fresh Node.js processes, interleaved (BENCH_RUNS rounds, default 5), and
 * the medians of the import's CPU (and wall) time are printed with their ratio. Targets: every
 * bundle within scripts/bundle-budget.json (600 KiB), every ratio within REFERENCE_RATIO_TARGET.
 * Writes JSON to bench/results/. Nothing in `npm test` measures a time (docs/performance.md,
 * "Bundles and cold imports").
 *
 * `BENCH_NODE=24` imports the bundles with Node.js 24, the Lambda runtime's (scripts/cold-imports.ts):
 * the figures of record; unset, with the Node.js running the bench.
 *
 * `BENCH_FUNCTIONS=transfers/,wallet/sweep-operations` benches only the functions whose name starts
 * with one of the comma-separated prefixes (bundled alone, so it is quick): for iterating on a few;
 * the figures of record are a full run's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { bundle, buildFunction, entryOutputOf, functionInputs, handlerEntries, repoRoot, SDK_EXPORTS } from '../scripts/bundle';
import { coldImportPair, importingNode, median, readBudget, round } from '../scripts/cold-imports';
import { benchSetting } from './measure';

/** A function's import may take at most this many times its SDK reference's. */
const REFERENCE_RATIO_TARGET = 1.3;

/** Loaded at import by the functions that carry them (the store's DynamoDB); every other client on first use. */
const STATIC_PACKAGES = new Set(['@aws-sdk/client-dynamodb', '@aws-sdk/util-dynamodb']);

const budget = readBudget(repoRoot);
const runs = benchSetting('BENCH_RUNS', 5, { integer: true });
// BENCH_NODE is checked (and a major fetched) before anything is built.
const { version: nodeVersion } = importingNode();
const outdir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
/** BENCH_FUNCTIONS: the prefixes of the functions to bench; unset, every function. */
const only = (process.env.BENCH_FUNCTIONS ?? '').split(',').map((prefix) => prefix.trim()).filter(Boolean);

/** The SDK packages in one function's bundle (the sdk-exports modules it loaded), sorted. */
function sdkPackagesOf(metafile: Metafile, handler: string): string[] {
  return functionInputs(metafile, entryOutputOf(metafile, handler))
    .filter((input) => input.startsWith('sdk-exports:'))
    .map((input) => input.slice('sdk-exports:'.length))
    .sort();
}

/** The reference module of a set of SDK packages, and one module per package loaded on first use. */
function referenceSources(packages: readonly string[]): Record<string, string> {
  const named = (pkg: string) => Object.keys(SDK_EXPORTS[pkg]!);
  const files: Record<string, string> = {};
  const lines: string[] = [];
  const kept: string[] = [];
  const lazy: string[] = [];
  for (const [i, pkg] of packages.entries()) {
    if (STATIC_PACKAGES.has(pkg)) {
      const names = named(pkg).map((name) => `${name} as s${i}_${name}`);
      lines.push(`import { ${names.join(', ')} } from ${JSON.stringify(pkg)};`);
      kept.push(...named(pkg).map((name) => `s${i}_${name}`));
    } else {
      files[`lazy${i}.js`] = `export { ${named(pkg).join(', ')} } from ${JSON.stringify(pkg)};\n`;
      lazy.push(`() => import('./lazy${i}.js')`);
    }
  }
  lines.push(`export const sdk = [${kept.join(', ')}];`, `export const onFirstUse = [${lazy.join(', ')}];`, 'export const handler = async () => sdk.length + onFirstUse.length;');
  files['index.js'] = `${lines.join('\n')}\n`;
  return files;
}

try {
  const handlers = handlerEntries().filter((handler) => only.length === 0 || only.some((prefix) => handler.startsWith(prefix)));
  if (handlers.length === 0) throw new Error(`BENCH_FUNCTIONS=${process.env.BENCH_FUNCTIONS}: no function's name starts with any of these`);
  const { sizes, metafile } = await bundle({ outdir, entries: handlers });
  const packagesOf = new Map(handlers.map((handler) => [handler, sdkPackagesOf(metafile, handler)]));

  // One reference per distinct set of clients.
  const sets = [...new Set([...packagesOf.values()].filter((set) => set.length > 0).map((set) => set.join(',')))];
  const referenceDir = join(outdir, '_reference');
  const referenceOf = new Map<string, { file: string; bytes: number }>();
  for (const [n, set] of sets.entries()) {
    const dir = join(referenceDir, `src${n}`);
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(referenceSources(set.split(',')))) writeFileSync(join(dir, name), text);
    // Built as a function is: its clients besides DynamoDB in chunks of their own.
    const { bytes } = await buildFunction(join(dir, 'index.js'), join(referenceDir, `ref${n}`), { sourcemap: false });
    referenceOf.set(set, { file: join(referenceDir, `ref${n}`, 'index.mjs'), bytes });
  }

  const rows = [];
  for (const handler of handlers) {
    const packages = packagesOf.get(handler)!;
    const reference = referenceOf.get(packages.join(','));
    const kib = Math.round((sizes[handler]! / 1024) * 10) / 10;
    if (!reference) {
      // No SDK client (the fallback, probes): no floor to compare with; timed alone.
      const [own] = await coldImportPair([join(outdir, handler, 'index.mjs'), join(outdir, handler, 'index.mjs')], runs);
      rows.push({ handler, kib, clients: [] as string[], cpuMs: own.cpuMs, wallMs: own.wallMs, referenceKib: null, referenceCpuMs: null, ratio: null });
      continue;
    }
    const [own, floor] = await coldImportPair([join(outdir, handler, 'index.mjs'), reference.file], runs);
    rows.push({
      handler,
      kib,
      clients: packages.map((pkg) => pkg.replace('@aws-sdk/', '')),
      cpuMs: own.cpuMs,
      wallMs: own.wallMs,
      referenceKib: Math.round((reference.bytes / 1024) * 10) / 10,
      referenceCpuMs: floor.cpuMs,
      ratio: Math.round((own.cpuMs / floor.cpuMs) * 100) / 100,
    });
  }
  rows.sort((a, b) => (b.ratio ?? 0) - (a.ratio ?? 0) || b.kib - a.kib);

  const width = Math.max(...rows.map((row) => row.handler.length));
  console.log(`${'function'.padEnd(width)}  ${'KiB'.padStart(6)}  ${'cpu ms'.padStart(6)}  ${'ref KiB'.padStart(7)}  ${'ref ms'.padStart(6)}  ${'ratio'.padStart(5)}  clients (besides DynamoDB: loaded on first use)`);
  for (const row of rows) {
    const cells = [row.handler.padEnd(width), String(row.kib).padStart(6), String(row.cpuMs).padStart(6), String(row.referenceKib ?? '-').padStart(7), String(row.referenceCpuMs ?? '-').padStart(6), String(row.ratio ?? '-').padStart(5)];
    console.log(`${cells.join('  ')}  ${row.clients.filter((c) => !STATIC_PACKAGES.has(`@aws-sdk/${c}`)).join(' ') || (row.clients.length ? '' : 'no SDK client')}`);
  }
  const compared = rows.filter((row) => row.ratio !== null);
  const ratios = compared.map((row) => row.ratio!);
  const largest = rows.reduce((a, b) => (b.kib > a.kib ? b : a));
  const summary = {
    functions: rows.length,
    runs_per_function: runs,
    largest: { handler: largest.handler, kib: largest.kib },
    median_kib: median(rows.map((row) => row.kib)),
    ratio_max: Math.max(...ratios),
    ratio_median: median(ratios),
    median_cpu_ms: median(rows.map((row) => row.cpuMs)),
    reference_cpu_ms: [...new Set(compared.map((row) => row.referenceCpuMs!))].sort((a, b) => a - b),
    over_bytes: rows.filter((row) => sizes[row.handler]! > budget.max_bytes).map((row) => row.handler),
    over_ratio: compared.filter((row) => row.ratio! > REFERENCE_RATIO_TARGET).map((row) => row.handler),
  };
  console.log(
    `\n${summary.functions} functions (${compared.length} with SDK clients), ${runs} interleaved rounds each, Node ${nodeVersion}: largest ${largest.handler} ${largest.kib} KiB (median ${summary.median_kib}); ` +
      `import CPU / reference: max ${summary.ratio_max}, median ${summary.ratio_median}. ` +
      `Targets ${round(budget.max_bytes / 1024)} KiB and ${REFERENCE_RATIO_TARGET}x: ` +
      (summary.over_bytes.length + summary.over_ratio.length === 0
        ? 'all within'
        : `over the size: ${summary.over_bytes.join(', ') || 'none'}; over the ratio: ${summary.over_ratio.join(', ') || 'none'}`),
  );
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `cold-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: { cpus: cpus().length, node: nodeVersion }, summary, rows }, null, 2)}\n`);
  console.log(`-> ${file}`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
