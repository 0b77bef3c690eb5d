#!/usr/bin/env node
/* global process, console */
/**
 * `npm start` and the CLIs without compiling TypeScript at every run: `node scripts/run.mjs
 * <entry.ts> [args...]` bundles the entry once with esbuild into node_modules/.cache/wallet-run/<entry>/ (npm packages
 * stay external), keeps the list of source files the bundle was made from, and runs the bundle.
 * The next run compares those files' modification times with the bundle's and rebuilds only when
 * one changed, was added (under functions/, for the platform) or is gone.
 *
 * local/main.ts is bundled together with every function under functions/ (code splitting: one
 * copy of each shared module, as the handlers share their module state with the platform when
 * tsx loads them); local/gateway.ts loads a handler from there instead of its .ts file.
 * `import.meta.url`/`dirname`/`filename` keep the values of the source file they are written in,
 * so files found beside a module (routes.json, the .data folder, packages resolved from it) are
 * found as before. Plain JavaScript: this file is what runs before anything is compiled.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
// Not under dist/: `npm run build` (and so `npm test`) empties dist/, under a running platform too.
const BUILD_ROOT = join(ROOT, 'node_modules', '.cache', 'wallet-run');
/** The entry whose bundle carries every function (the embedded platform loads them by name). */
const PLATFORM_ENTRY = 'local/main.ts';
/** Compiled function handlers, for local/gateway.ts's loadHandler (a global, so no child process inherits it). */
export const COMPILED_FUNCTIONS = Symbol.for('wallet.local.compiledFunctions');

function functionEntries() {
  const found = [];
  const walk = (dir) => {
    for (const item of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${item.name}`;
      if (item.isDirectory()) walk(path);
      else if (item.name.endsWith('.ts') && !item.name.endsWith('.d.ts')) found.push(path);
    }
  };
  walk('functions');
  return found.sort();
}

const mtime = (file) => {
  try {
    return statSync(join(ROOT, file)).mtimeMs;
  } catch {
    return undefined;
  }
};

/** The build recorded for `entry` if every source it was made from is unchanged, else undefined. */
function currentBuild(dir, entries) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(dir, 'current.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (record.root !== ROOT || record.entries.join('\n') !== entries.join('\n')) return undefined;
  for (const input of record.inputs) {
    const time = mtime(input);
    if (time === undefined || time > record.built_at) return undefined;
  }
  return record;
}

/** Keeps each source file's import.meta values, wherever the bundle puts its code. */
const importMetaOfSource = {
  name: 'import-meta-of-source',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader: 'ts' };
    });
  },
};

async function buildBundle(entry, dir, entries) {
  const { build } = await import('esbuild');
  const startedAt = Date.now();
  const id = `${startedAt.toString(36)}-${process.pid}`;
  const outdir = join(dir, id);
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: entries,
    outbase: ROOT,
    outdir,
    bundle: true,
    splitting: entries.length > 1,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'error',
    plugins: [importMetaOfSource],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.includes('node_modules/'));
  // Sources edited while the build ran make the next run build again.
  const record = { root: ROOT, entry, entries, id, built_at: startedAt, inputs: [...new Set([...inputs, ...entries])].sort() };
  const pointer = join(dir, `current.json.${process.pid}`);
  writeFileSync(pointer, JSON.stringify(record));
  renameSync(pointer, join(dir, 'current.json'));
  // Earlier builds (a running platform may still use one): removed once they are an hour old.
  for (const old of readdirSync(dir, { withFileTypes: true })) {
    if (!old.isDirectory() || old.name === id) continue;
    const path = join(dir, old.name);
    if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
  }
  return record;
}

const [entryArg, ...args] = process.argv.slice(2);
if (!entryArg || !entryArg.endsWith('.ts')) {
  console.error('usage: node scripts/run.mjs <entry.ts> [args...]');
  process.exit(2);
}
const entry = relative(ROOT, resolve(ROOT, entryArg)).split(sep).join('/');
const entries = entry === PLATFORM_ENTRY ? [entry, ...functionEntries()] : [entry];
const dir = join(BUILD_ROOT, entry.replace(/\.ts$/, '').replaceAll('/', '+'));
mkdirSync(dir, { recursive: true });
const record = currentBuild(dir, entries) ?? (await buildBundle(entry, dir, entries));
const outdir = join(dir, record.id);
if (entry === PLATFORM_ENTRY) globalThis[COMPILED_FUNCTIONS] = join(outdir, 'functions');
// The entry sees its own path as argv[1], as under tsx (scripts check whether they are the main module).
process.argv = [process.argv[0], join(ROOT, entry), ...args];
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(outdir, entry.replace(/\.ts$/, '.js'))).href);
