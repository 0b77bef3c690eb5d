import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/bundle';

/**
 * A function's logged stack names the TypeScript it came from, although Lambda runs the minified
 * bundle without --enable-source-maps: the logger maps it through the map beside the bundle.
 */

const fixture = join(repoRoot, 'test', 'fixtures', 'logs-an-error.ts');
const throwLine = readFileSync(fixture, 'utf8').split('\n').findIndex((line) => line.includes("throw new Error('refused on purpose')")) + 1;
let outdir: string;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'stack-test-'));
  // The options of scripts/bundle.ts that shape the output and its map.
  await build({ entryPoints: { index: fixture }, outdir, outExtension: { '.js': '.mjs' }, bundle: true, format: 'esm', platform: 'node', target: 'node22', minify: true, sourcemap: true, sourcesContent: false, logLevel: 'error' });
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const stackOfBundle = (): string =>
  execFileSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(join(outdir, 'index.mjs')).href)}); process.stdout.write(m.loggedStack());`], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });

describe('logged stacks of a bundle', () => {
  it('name the TypeScript file and line, not the minified bundle', () => {
    const stack = stackOfBundle();
    expect(stack).toContain('refused on purpose');
    expect(stack).toContain(`test/fixtures/logs-an-error.ts:${throwLine}:`);
    expect(stack).not.toMatch(/index\.mjs:\d+:\d+/);
  });

  it('stay as they are when no map is beside the bundle', () => {
    rmSync(join(outdir, 'index.mjs.map'));
    expect(stackOfBundle()).toMatch(/index\.mjs:\d+:\d+/);
  });
});
