import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, handlerEntries, HANDLER_FILES, repoRoot, type BundleResult } from '../../scripts/bundle';
import { routes } from '../../shared/routes';
import { workers } from '../../shared/workers';

/**
 * The one infra test that really bundles: every entry the manifest names, in one esbuild pass,
 * into a temporary directory (dist/ is left alone).
 */

/** The budget every function is held to (STYLE.md: bundles and cold starts; docs/performance.md). */
const budget = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'scripts', 'bundle-budget.json'), 'utf8')) as { max_bytes: number };

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

  it('calls AWS through the platform\'s JSON client: no SDK client, no SDK import in any bundle', () => {
    for (const handler of handlerEntries()) {
      const code = readFileSync(join(outdir, handler, 'index.mjs'), 'utf8');
      expect(code, handler).not.toMatch(/from\s*["']@aws-sdk\//);
    }
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => /node_modules\/@aws-sdk\/(client-|lib-dynamodb|credential-provider)/.test(input))).toEqual([]);
    expect(inputs.some((input) => input.endsWith('shared/aws/aws-json.ts'))).toBe(true);
  });

  it('ships the files a function reads at run time beside it', () => {
    for (const [handler, files] of Object.entries(HANDLER_FILES)) {
      for (const file of files) expect(readFileSync(join(outdir, handler, file.as), 'utf8'), `${handler}/${file.as}`).toBe(readFileSync(join(repoRoot, file.from), 'utf8'));
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

  it('gives the fallback the API, method and path of every route, so it answers 404 and 405 without the manifest', async () => {
    expect(JSON.parse(readFileSync(join(outdir, 'platform', 'fallback', 'routes.json'), 'utf8'))).toEqual(routes.map(({ api, method, path }) => ({ api, method, path })));
    process.env.GATEWAY_NAME = 'public';
    try {
      const { handler } = (await import(join(outdir, 'platform', 'fallback', 'index.mjs'))) as { handler: (event: unknown) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }> };
      const unknown = await handler({ httpMethod: 'GET', path: '/v1/nothing', requestContext: { requestId: 'r' } });
      expect([unknown.statusCode, JSON.parse(unknown.body).code]).toEqual([404, 'not_found']);
      const wrongMethod = await handler({ httpMethod: 'DELETE', path: '/v1/users', requestContext: { requestId: 'r' } });
      expect([wrongMethod.statusCode, JSON.parse(wrongMethod.body).code, wrongMethod.headers.allow]).toEqual([405, 'method_not_allowed', 'POST, GET']);
    } finally {
      delete process.env.GATEWAY_NAME;
    }
  });

  it('keeps every bundle within the byte budget (scripts/bundle-budget.json)', () => {
    const over = Object.entries(result.sizes).filter(([, bytes]) => bytes > budget.max_bytes);
    expect(over.map(([handler, bytes]) => `${handler}: ${bytes} bytes`), `over ${budget.max_bytes} bytes`).toEqual([]);
  });
});
