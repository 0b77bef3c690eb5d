import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { DOCS_RENDERER_FILE, DOCS_RENDERER_PACKAGE_PATH } from '../shared/http/docs-page';
import { DASHBOARD_SCRIPT_FILE } from '../shared/http/dashboard-page';
import { buildDashboardApp } from '../dashboard/build';
import { routes } from '../shared/routes';
import { workers } from '../shared/workers';

/**
 * Bundles every Lambda entry point the manifest names (routes, workers and the gateway fallback)
 * into dist/<handler>/, the directory each function's asset is made from: index.mjs and the chunks
 * it loads in _chunks/. `npx cdk synth` calls `bundle()` first unless the context says
 * skipBundling=true.
 *
 * Each function is its own esbuild build, split into chunks (esbuild's `splitting`), so what a
 * function loads on first use (its route's schemas, the KMS, Secrets Manager and SQS clients, rare
 * paths) is a file of its own, read when first imported: Lambda's init parses only what the
 * function runs at import. One file per function carried every lazy path in it, parsed at each
 * cold start, and wrapped each module reachable from an `import()` in a lazy initializer whose code
 * was parsed twice. One split build of all functions together made a chunk of every set of
 * functions sharing a module: 54 files at create-transfer's import, each a module for Node to
 * resolve, read and link, slower than the single file. Measured in docs/performance.md ("Bundles
 * and cold imports"); the price is the build's time (BUILD_CONCURRENCY builds at a time).
 */

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const defaultOutdir = join(repoRoot, 'dist');

/**
 * Files a function reads at run time instead of bundling (the OpenAPI documents of shared/http/openapi/served.ts, the docs page renderer of shared/http/docs-page.ts, the dashboard's app of shared/http/dashboard-page.ts): copied (or built)
 * into dist/<handler>/ under the given name, so the function's asset carries them.
 */
export const HANDLER_FILES: Record<string, readonly ({ from: string; as: string } | { build: () => Promise<string>; as: string })[]> = {
  'platform/openapi-wallet': [{ from: 'docs/openapi/wallet.json', as: 'openapi-wallet.json' }],
  'platform/openapi-ledger': [{ from: 'docs/openapi/ledger.json', as: 'openapi-ledger.json' }],
  'platform/openapi-console': [{ from: 'docs/openapi/console.json', as: 'openapi-console.json' }],
  'platform/docs-renderer': [{ from: `node_modules/${DOCS_RENDERER_PACKAGE_PATH}`, as: DOCS_RENDERER_FILE }],
  // Built, not copied: the dashboard's app (dashboard/build.ts), beside the console's dashboard-app function.
  'platform/dashboard-app': [{ build: buildDashboardApp, as: DASHBOARD_SCRIPT_FILE }],
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

/**
 * What shipped code takes from each AWS SDK package: the export and its module under the
 * package's dist-es/. Each package's index re-exports every command (`export *`), which esbuild
 * tree-shakes only while no module on the way is loaded lazily: once a function reaches the store
 * through an `import()` (a route that loads a service on first use does), every module below it is
 * wrapped for lazy evaluation, and a wrapped `export *` barrel keeps every command of the service
 * (DynamoDB's 57, with their schemas and waiters: 44 KiB more per function). `sdkExports` loads,
 * in place of each index, a module that re-exports exactly these; an import of any other name
 * fails the build, naming it, so a new command is added here on purpose.
 */
export const SDK_EXPORTS: Record<string, Record<string, string>> = {
  '@aws-sdk/client-dynamodb': {
    DynamoDBClient: 'DynamoDBClient',
    GetItemCommand: 'commands/GetItemCommand',
    PutItemCommand: 'commands/PutItemCommand',
    UpdateItemCommand: 'commands/UpdateItemCommand',
    QueryCommand: 'commands/QueryCommand',
    BatchGetItemCommand: 'commands/BatchGetItemCommand',
    BatchWriteItemCommand: 'commands/BatchWriteItemCommand',
    TransactWriteItemsCommand: 'commands/TransactWriteItemsCommand',
  },
  // The document translation of shared/aws/dynamodb.ts (lib-dynamodb's runtime is not shipped: docs/decisions.md).
  '@aws-sdk/util-dynamodb': { marshall: 'marshall', unmarshall: 'unmarshall' },
  '@aws-sdk/client-kms': { KMSClient: 'KMSClient', SignCommand: 'commands/SignCommand', GetPublicKeyCommand: 'commands/GetPublicKeyCommand' },
  '@aws-sdk/client-secrets-manager': { SecretsManagerClient: 'SecretsManagerClient', GetSecretValueCommand: 'commands/GetSecretValueCommand' },
  '@aws-sdk/client-sqs': { SQSClient: 'SQSClient', SendMessageCommand: 'commands/SendMessageCommand' },
  '@aws-sdk/client-eventbridge': { EventBridgeClient: 'EventBridgeClient', PutEventsCommand: 'commands/PutEventsCommand' },
};

const requireHere = createRequire(import.meta.url);

/** The directory of a function's chunks, beside its index.mjs. */
export const CHUNKS = '_chunks';

/** Loads SDK_EXPORTS' narrow module in place of each SDK package's index (see there). */
export const sdkExports: Plugin = {
  name: 'sdk-exports',
  setup(plugin) {
    const names = Object.keys(SDK_EXPORTS).map((name) => name.replace(/[/.-]/g, '\\$&'));
    plugin.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) => ({ path: args.path, namespace: 'sdk-exports' }));
    plugin.onLoad({ filter: /.*/, namespace: 'sdk-exports' }, (args) => {
      const dir = join(dirname(requireHere.resolve(`${args.path}/package.json`, { paths: [repoRoot] })), 'dist-es');
      const contents = Object.entries(SDK_EXPORTS[args.path]!)
        .map(([name, file]) => `export { ${name} } from ${JSON.stringify(join(dir, `${file}.js`))};`)
        .join('\n');
      return { contents, resolveDir: dir, loader: 'js' };
    });
  },
};

/**
 * A Lambda function's credentials are its execution role's, which Lambda puts in the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; LocalStack's Lambdas too), the
 * first place the SDK's default chain looks. The rest of the chain (SSO, ini files, processes, web
 * identity, container and instance metadata) is 90 KiB and a tenth of a function's import, and can
 * never answer inside Lambda: bundles take the SDK's own environment provider as `defaultProvider`.
 * Local tools and scripts, not bundled, keep the whole chain.
 */
export const lambdaCredentials: Plugin = {
  name: 'lambda-credentials',
  setup(plugin) {
    plugin.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, (args) => ({ path: args.path, namespace: 'lambda-credentials' }));
    plugin.onLoad({ filter: /.*/, namespace: 'lambda-credentials' }, () => {
      const env = join(dirname(requireHere.resolve('@aws-sdk/credential-provider-env/package.json', { paths: [repoRoot] })), 'dist-es', 'index.js');
      return { contents: `export { fromEnv as defaultProvider } from ${JSON.stringify(env)};`, resolveDir: dirname(env), loader: 'js' };
    });
  },
};

export interface BundleOptions {
  outdir?: string;
  /** Entries to bundle; the manifest's by default. */
  entries?: readonly string[];
  /** Print the size table. */
  log?: boolean;
}

export interface BundleResult {
  outdir: string;
  /** Bytes of each function's JavaScript: dist/<handler>/index.mjs and its chunks (without source maps). */
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

/** How every function is bundled (bench/cold.ts builds its SDK reference bundles the same way). */
export const BUNDLE_OPTIONS = {
  outExtension: { '.js': '.mjs' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Prefer ES module builds so tree-shaking can drop what a handler does not use.
  mainFields: ['module', 'main'],
  minify: true,
  // Nothing external: the AWS SDK clients a function uses are bundled (they cold-start faster
  // than the runtime's copy), tree-shaken to the commands it sends (sdkExports) and pinned to
  // what we tested.
  external: [],
  plugins: [sdkExports, lambdaCredentials],
  banner: { js: banner },
  legalComments: 'none',
  logLevel: 'warning',
  // Chunks, in each function's own _chunks/ (see the top of this file).
  splitting: true,
  chunkNames: `${CHUNKS}/[name]-[hash]`,
} satisfies BuildOptions;

/** Which of a function's files: all it can load, or only those its import loads (not its `import()`s). */
export interface Loaded {
  atImport?: boolean;
}

/**
 * What one function's JavaScript is: its entry's output and every chunk it can load, statically or
 * on first use (paths as the metafile names its outputs, relative to the repository); with
 * `atImport`, only the entry and the chunks it imports statically.
 */
export function functionOutputs(metafile: Metafile, entryOutput: string, { atImport = false }: Loaded = {}): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]!.imports) {
      if (!imported.external && (imported.kind === 'import-statement' || (!atImport && imported.kind === 'dynamic-import'))) visit(imported.path);
    }
  };
  visit(entryOutput);
  return [...seen];
}

/** The modules one function's JavaScript carries (the inputs of its entry and of its chunks; with `atImport`, of those its import loads). */
export function functionInputs(metafile: Metafile, entryOutput: string, loaded: Loaded = {}): string[] {
  return [...new Set(functionOutputs(metafile, entryOutput, loaded).flatMap((file) => Object.keys(metafile.outputs[file]!.inputs)))];
}

/** The metafile's name of `<entry>/index.mjs`'s output. */
export const entryOutputOf = (metafile: Metafile, entry: string): string => Object.keys(metafile.outputs).find((file) => file.endsWith(`/${entry}/index.mjs`))!;

/** Builds at a time: esbuild's own threads share the host's cores; more at once only queue. */
const BUILD_CONCURRENCY = 4;

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/**
 * One function's build into `dir`: index.mjs and its chunks in _chunks/, each with its source map
 * (logged stack traces are mapped through them on the first error, shared/kernel/stack.ts, not by
 * --enable-source-maps at every cold start; sources are left out to keep the packages small).
 */
export async function buildFunction(entryFile: string, dir: string, options: Pick<BuildOptions, 'sourcemap'> = { sourcemap: true }): Promise<{ metafile: Metafile; bytes: number }> {
  const result = await build({ ...BUNDLE_OPTIONS, ...options, absWorkingDir: repoRoot, entryPoints: { index: entryFile }, outdir: dir, sourcesContent: false, metafile: true });
  const loaded = functionOutputs(result.metafile, entryOutputOf(result.metafile, basename(dir)));
  const shipped = new Set(loaded);
  // A chunk no file imports (esbuild makes one for every `import()` it meets, also in code it then
  // drops: @aws-sdk/core's browser user-agent parser, bowser, 33 KiB) is not shipped.
  for (const file of Object.keys(result.metafile.outputs)) {
    if (!file.endsWith('.mjs') || shipped.has(file)) continue;
    delete result.metafile.outputs[file];
    delete result.metafile.outputs[`${file}.map`];
    rmSync(join(repoRoot, file));
    rmSync(join(repoRoot, `${file}.map`), { force: true });
  }
  const bytes = loaded.reduce((sum, file) => sum + result.metafile.outputs[file]!.bytes, 0);
  return { metafile: result.metafile, bytes };
}

export async function bundle(options: BundleOptions = {}): Promise<BundleResult> {
  const outdir = options.outdir ?? defaultOutdir;
  const entries = options.entries ?? handlerEntries();
  const startedAt = performance.now();

  // A stale dist/<handler> of a removed route must not be deployed by accident.
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });

  const sizes: Record<string, number> = {};
  const metafile: Metafile = { inputs: {}, outputs: {} };
  await eachLimited(entries, BUILD_CONCURRENCY, async (entry) => {
    const built = await buildFunction(join(repoRoot, 'functions', `${entry}.ts`), join(outdir, entry));
    sizes[entry] = built.bytes;
    Object.assign(metafile.inputs, built.metafile.inputs);
    Object.assign(metafile.outputs, built.metafile.outputs);
  });
  const sorted = Object.fromEntries(entries.map((entry) => [entry, sizes[entry]!]));

  for (const [handler, files] of Object.entries(HANDLER_FILES)) {
    if (!entries.includes(handler)) continue;
    for (const file of files) {
      if ('from' in file) copyFileSync(join(repoRoot, file.from), join(outdir, handler, file.as));
      else writeFileSync(join(outdir, handler, file.as), await file.build());
    }
  }
  // The fallback matches paths only: it gets the manifest's API, method and path of each route.
  if (entries.includes(fallbackHandler)) {
    writeFileSync(join(outdir, fallbackHandler, 'routes.json'), JSON.stringify(routes.map(({ api, method, path }) => ({ api, method, path }))));
  }
  writeFileSync(join(outdir, 'sizes.json'), `${JSON.stringify(sorted, null, 2)}\n`);
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(metafile));

  const elapsedMs = Math.round(performance.now() - startedAt);
  if (options.log) printSizes(sorted, elapsedMs);
  return { outdir, sizes: sorted, elapsedMs, metafile };
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
