import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, HANDLER_FILES, handlerEntries, type BundleResult } from '../../scripts/bundle';
import { routes } from '../../shared/routes';
import { workers } from '../../shared/workers';

/**
 * The one infra test that really bundles: every entry the manifest names, in one esbuild pass,
 * into a temporary directory (dist/ is left alone).
 */

/** A bundle above this drags in more than one route needs (STYLE.md: bundles and cold starts). */
const MAX_BUNDLE_BYTES = 1.5 * 1024 * 1024;

let outdir: string;
let result: BundleResult;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  result = await bundle({ outdir });
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('bundle', () => {
  it('names every route handler, worker handler and the fallback once', () => {
    const entries = handlerEntries();
    for (const handler of [...routes.map((r) => r.handler), ...workers.map((w) => w.handler), 'platform/fallback']) {
      expect(entries).toContain(handler);
    }
    expect(new Set(entries).size).toBe(entries.length);
  });

  it('writes dist/<handler>/index.mjs with a source map for each entry, and their sizes', () => {
    const sizes = JSON.parse(readFileSync(join(outdir, 'sizes.json'), 'utf8')) as Record<string, number>;
    expect(Object.keys(sizes).sort()).toEqual(handlerEntries());
    for (const handler of handlerEntries()) {
      expect(existsSync(join(outdir, handler, 'index.mjs')), handler).toBe(true);
      expect(existsSync(join(outdir, handler, 'index.mjs.map')), handler).toBe(true);
      expect(sizes[handler]).toBe(result.sizes[handler]);
    }
  });

  it('emits ES modules that export handler and give CommonJS dependencies a require', () => {
    for (const handler of handlerEntries()) {
      const code = readFileSync(join(outdir, handler, 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire as __bundleCreateRequire } from 'node:module';"), handler).toBe(true);
      expect(code, handler).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
    }
  });

  it('bundles the AWS SDK instead of importing it from the runtime', () => {
    for (const handler of handlerEntries()) {
      const code = readFileSync(join(outdir, handler, 'index.mjs'), 'utf8');
      expect(code, handler).not.toMatch(/from\s*["']@aws-sdk\//);
    }
    const inputs = Object.keys(result.metafile.inputs);
    if (routes.some((route) => Object.keys(route.tables).length > 0)) {
      expect(inputs.some((input) => input.includes('node_modules/@aws-sdk/client-dynamodb/'))).toBe(true);
    }
  });

  it('ships the files a function reads beside its bundle, not inside it (the docs renderer)', () => {
    expect(Object.keys(HANDLER_FILES)).toContain('platform/docs-renderer');
    for (const [handler, files] of Object.entries(HANDLER_FILES)) {
      for (const file of files) {
        const shipped = join(outdir, handler, file.as);
        expect(existsSync(shipped), shipped).toBe(true);
        // A marker of the shipped file's own text is not in the function's JavaScript.
        const marker = readFileSync(shipped, 'utf8').slice(-200);
        expect(readFileSync(join(outdir, handler, 'index.mjs'), 'utf8').includes(marker), handler).toBe(false);
      }
      // No heavier than a probe: the file is beside the function, not in its JavaScript.
      expect(result.sizes[handler]!).toBeLessThan(result.sizes['platform/healthz']! + 20 * 1024);
    }
  });

  it('keeps every bundle under its size budget', () => {
    for (const [handler, bytes] of Object.entries(result.sizes)) expect(bytes, handler).toBeLessThan(MAX_BUNDLE_BYTES);
  });
});
