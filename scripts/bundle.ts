import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { DOCS_RENDERER_FILE, DOCS_RENDERER_PACKAGE_PATH } from '../shared/http/docs-page';
import { routes } from '../shared/routes';
import { workers } from '../shared/workers';

/**
 * Bundles every Lambda entry point the manifest names (routes, workers and the gateway fallback)
 * in ONE esbuild pass into dist/<handler>/index.mjs, the directory each function's asset is made
 * from. One pass because esbuild shares parsing across entries: 130 entries cost about what one
 * costs. `npx cdk synth` calls `bundle()` first unless the context says skipBundling=true.
 */

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const defaultOutdir = join(repoRoot, 'dist');

/**
 * Files a function reads at run time instead of bundling (the OpenAPI documents of shared/http/openapi/served.ts, the docs page renderer of shared/http/docs-page.ts): copied
 * into dist/<handler>/ under the given name, so the function's asset carries them.
 */
export const HANDLER_FILES: Record<string, readonly { from: string; as: string }[]> = {
  'platform/openapi-wallet': [{ from: 'docs/openapi/wallet.json', as: 'openapi-wallet.json' }],
  'platform/openapi-ledger': [{ from: 'docs/openapi/ledger.json', as: 'openapi-ledger.json' }],
  'platform/openapi-console': [{ from: 'docs/openapi/console.json', as: 'openapi-console.json' }],
  'platform/docs-renderer': [{ from: `node_modules/${DOCS_RENDERER_PACKAGE_PATH}`, as: DOCS_RENDERER_FILE }],
};

/** The Lambda that answers problem+json 404/405 for anything no route serves (one per gateway). */
export const fallbackHandler = 'platform/fallback';

/** The ledger's embedded OIDC issuer, deployed instead of Cognito with `-c ledgerIssuer=embedded` (lib/ledger-stack.ts). */
export const issuerHandler = 'ledger/oidc-issuer';

/** Every handler entry (path under functions/, no extension), once, sorted. */
export function handlerEntries(): string[] {
  const named = [...routes.map((route) => route.handler), ...workers.map((worker) => worker.handler), fallbackHandler, issuerHandler];
  return [...new Set(named)].sort();
}

export interface BundleOptions {
  outdir?: string;
  /** Entries to bundle; the manifest's by default. */
  entries?: readonly string[];
  /** Print the size table. */
  log?: boolean;
}

export interface BundleResult {
  outdir: string;
  /** Bytes of dist/<handler>/index.mjs per handler (without its source map). */
  sizes: Record<string, number>;
  elapsedMs: number;
  metafile: Metafile;
}

// ESM output still meets CommonJS dependencies that call require() (some AWS SDK and middy
// transitive deps do); createRequire gives them one. The odd names avoid clashing with bundled code.
const banner = [
  "import { createRequire as __bundleCreateRequire } from 'node:module';",
  'const require = __bundleCreateRequire(import.meta.url);',
].join('\n');

export async function bundle(options: BundleOptions = {}): Promise<BundleResult> {
  const outdir = options.outdir ?? defaultOutdir;
  const entries = options.entries ?? handlerEntries();
  const startedAt = performance.now();

  // A stale dist/<handler> of a removed route must not be deployed by accident.
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });

  const result = await build({
    absWorkingDir: repoRoot,
    entryPoints: Object.fromEntries(entries.map((entry) => [`${entry}/index`, join(repoRoot, 'functions', `${entry}.ts`)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // Prefer ES module builds so tree-shaking can drop what a handler does not use.
    mainFields: ['module', 'main'],
    minify: true,
    // Logged stack traces are mapped through them on the first error (shared/kernel/stack.ts), not
    // by --enable-source-maps at every cold start; sources are left out to keep the packages small.
    sourcemap: true,
    sourcesContent: false,
    // Nothing external: what a function uses of the AWS SDK (util-dynamodb's marshaller; no client,
    // shared/aws/aws-json.ts speaks to AWS) is bundled, tree-shaken and pinned to what we tested.
    external: [],
    banner: { js: banner },
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });

  const sizes: Record<string, number> = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!file.endsWith('/index.mjs')) continue;
    const handler = relative(outdir, join(repoRoot, file)).replace(/\/index\.mjs$/, '');
    sizes[handler] = output.bytes;
  }
  for (const [handler, files] of Object.entries(HANDLER_FILES)) {
    if (!entries.includes(handler)) continue;
    for (const file of files) copyFileSync(join(repoRoot, file.from), join(outdir, handler, file.as));
  }
  // The fallback matches paths only: it gets the manifest's API, method and path of each route.
  if (entries.includes(fallbackHandler)) {
    writeFileSync(join(outdir, fallbackHandler, 'routes.json'), JSON.stringify(routes.map(({ api, method, path }) => ({ api, method, path }))));
  }
  writeFileSync(join(outdir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(result.metafile));

  const elapsedMs = Math.round(performance.now() - startedAt);
  if (options.log) printSizes(sizes, elapsedMs);
  return { outdir, sizes, elapsedMs, metafile: result.metafile };
}

function printSizes(sizes: Record<string, number>, elapsedMs: number): void {
  const width = Math.max(...Object.keys(sizes).map((name) => name.length));
  for (const [handler, bytes] of Object.entries(sizes)) {
    console.log(`${handler.padEnd(width)}  ${(bytes / 1024).toFixed(1).padStart(8)} KiB`);
  }
  console.log(`${Object.keys(sizes).length} bundles in ${elapsedMs} ms -> dist/sizes.json`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundle({ log: true });
}
