import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, handlerEntries, HANDLER_FILES, repoRoot, type BundleResult } from '../../scripts/bundle';
import { coldImports, importsOverBudget, readBudget } from '../../scripts/cold-imports';
import { routes } from '../../shared/routes';
import { workers } from '../../shared/workers';

/**
 * The one infra test that really bundles: every entry the manifest names, in one esbuild pass,
 * into a temporary directory (dist/ is left alone).
 */

/** The budget every function is held to (STYLE.md: bundles and cold starts; docs/performance.md). */
const budget = readBudget(repoRoot);

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

  it('keeps the staff password code in the staff login function only (the credential hook needs only the roles)', () => {
    const carriers = Object.entries(result.metafile.outputs)
      .filter(([file]) => file.endsWith('/index.mjs'))
      .filter(([, output]) => Object.keys(output.inputs).some((input) => /shared\/wallet\/auth\/(staff|passwords)\.ts$/.test(input)))
      .map(([file]) => relative(outdir, join(repoRoot, file)).replace(/\/index\.mjs$/, ''));
    expect(carriers).toEqual(['auth/create-staff-session']);
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

  it('holds every bundle and its cold import to the budget in npm test, and names the function over it', async () => {
    // `npm test` runs the check itself before the test files (package.json); here: that it would
    // fail a function over budget and name it, and that a recheck does not excuse one that stays over.
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.test).toMatch(/npm run check:bundles && vitest run$/);
    const fake = mkdtempSync(join(tmpdir(), 'cold-imports-'));
    try {
      const spin = (ms: number) => `const start = process.cpuUsage(); while ((process.cpuUsage(start).user + process.cpuUsage(start).system) / 1000 < ${ms}); export const handler = () => 1;`;
      for (const [handler, code] of [['quick/fn', 'export const handler = () => 1;'], ['slow/fn', spin(90)]] as const) {
        mkdirSync(join(fake, handler), { recursive: true });
        writeFileSync(join(fake, handler, 'index.mjs'), code);
      }
      const fakeBudget = { ...budget, max_import_cpu_ms: 60, import_runs: 3, import_rechecks: 1, recheck_pause_ms: 0 };
      const timings = await coldImports(fake, ['quick/fn', 'slow/fn'], fakeBudget.import_runs);
      expect(timings.find((t) => t.handler === 'slow/fn')!.cpuMs).toBeGreaterThan(60);
      const over = await importsOverBudget(fake, timings, fakeBudget);
      expect(over.map((entry) => entry.handler)).toEqual(['slow/fn']);
      expect(over[0]!.cpuMs).toHaveLength(2);
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});
