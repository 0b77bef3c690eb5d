import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, handlerEntries, HANDLER_FILES, repoRoot, SDK_EXPORTS, type BundleResult } from '../../scripts/bundle';
import { bundlesOverBudget, readBudget } from '../../scripts/cold-imports';
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

/** One function's output in the bundle's metafile. */
const outputOf = (handler: string) => Object.entries(result.metafile.outputs).find(([file]) => file.endsWith(`${handler}/index.mjs`))![1];

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

  it('bundles the AWS SDK clients a function calls, with only the commands the platform sends', () => {
    const inputs = Object.keys(result.metafile.inputs);
    for (const handler of handlerEntries()) {
      const code = readFileSync(join(outdir, handler, 'index.mjs'), 'utf8');
      // Nothing left for the runtime to resolve: the SDK is in the bundle, pinned.
      expect(code, handler).not.toMatch(/from\s*["']@aws-sdk\//);
    }
    // Every function that reads or writes a table carries the DynamoDB client, through lib-dynamodb.
    expect(Object.keys(outputOf('transfers/create-transfer').inputs)).toEqual(expect.arrayContaining(['sdk-exports:@aws-sdk/client-dynamodb', 'sdk-exports:@aws-sdk/lib-dynamodb']));
    // No index of an SDK package (which re-exports every command), and no command the platform does not send.
    const commands = inputs.filter((input) => /node_modules\/@aws-sdk\/(client-[a-z-]+|lib-dynamodb)\/dist-es\/commands\/\w+Command\.js$/.test(input)).map((input) => input.replace(/.*@aws-sdk\/([a-z-]+)\/dist-es\/commands\/(\w+)\.js$/, '@aws-sdk/$1 $2'));
    const allowed = [
      ...Object.entries(SDK_EXPORTS).flatMap(([pkg, names]) => Object.keys(names).filter((name) => name.endsWith('Command')).map((name) => `${pkg} ${name}`)),
      // The DynamoDB client's own: its endpoint discovery (off unless configured) names it.
      '@aws-sdk/client-dynamodb DescribeEndpointsCommand',
    ];
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter((command) => !allowed.includes(command))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/@aws-sdk\/(client-[a-z-]+|lib-dynamodb)\/dist-es\/index\.js$/.test(input))).toEqual([]);
    // The clients besides DynamoDB only where a function calls them: EventBridge in the relay alone.
    const withEventBridge = handlerEntries().filter((handler) => Object.keys(outputOf(handler).inputs).includes('sdk-exports:@aws-sdk/client-eventbridge'));
    expect(withEventBridge).toEqual(['events/relay']);
  });

  it("gives every function the SDK's environment credentials (a Lambda role's), not the rest of the default chain", () => {
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('lambda-credentials:@aws-sdk/credential-provider-node');
    expect(inputs.some((input) => input.includes('@aws-sdk/credential-provider-env/'))).toBe(true);
    // SSO, ini files, processes, web identity and instance metadata can never answer inside Lambda.
    expect(inputs.filter((input) => /@aws-sdk\/credential-provider-(node|ini|sso|process|web-identity|http)\/|@smithy\/credential-provider-imds\//.test(input))).toEqual([]);
  });

  it('keeps the staff password code in the staff login function only (the credential hook needs only the roles)', () => {
    const carriers = Object.entries(result.metafile.outputs)
      .filter(([file]) => file.endsWith('/index.mjs'))
      .filter(([, output]) => Object.keys(output.inputs).some((input) => /shared\/wallet\/auth\/(staff|passwords)\.ts$/.test(input)))
      .map(([file]) => relative(outdir, join(repoRoot, file)).replace(/\/index\.mjs$/, ''));
    expect(carriers).toEqual(['auth/create-staff-session']);
  });

  it('ships the files a function reads at run time beside it', async () => {
    for (const [handler, files] of Object.entries(HANDLER_FILES)) {
      for (const file of files) {
        const expected = 'from' in file ? readFileSync(join(repoRoot, file.from), 'utf8') : await file.build();
        expect(readFileSync(join(outdir, handler, file.as), 'utf8'), `${handler}/${file.as}`).toBe(expected);
      }
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
      // The dashboard's CORS preflight (API Gateway sends OPTIONS to the fallback): answered for the
      // console's origin only (DASHBOARD_ORIGIN, shared/http/cors.ts); any other stays a 405.
      const origin = 'https://console.example';
      process.env.DASHBOARD_ORIGIN = origin;
      const preflight = (from: string) => handler({ httpMethod: 'OPTIONS', path: '/v1/users', headers: { Origin: from, 'Access-Control-Request-Method': 'GET' }, requestContext: { requestId: 'r' } });
      const allowed = await preflight(origin);
      expect([allowed.statusCode, allowed.headers['access-control-allow-origin'], allowed.headers['access-control-allow-methods']]).toEqual([204, origin, 'POST, GET']);
      const stranger = await preflight('https://elsewhere.example');
      expect([stranger.statusCode, stranger.headers['access-control-allow-origin']]).toEqual([405, undefined]);
    } finally {
      delete process.env.GATEWAY_NAME;
      delete process.env.DASHBOARD_ORIGIN;
    }
  });

  it('holds every bundle to the size budget in npm test (600 KiB), naming the function over, and measures no time there', async () => {
    // `npm test` runs the check itself before the test files (package.json); here: that it would
    // fail a function over budget and name it. Import times live in `npm run bench:cold`.
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.test).toMatch(/npm run check:bundles && vitest run$/);
    expect(budget).toEqual({ $comment: expect.any(String), max_bytes: 600 * 1024 });
    expect(bundlesOverBudget({ 'quick/fn': 1024, 'large/fn': budget.max_bytes + 1, 'edge/fn': budget.max_bytes }, budget)).toEqual(['large/fn']);
    expect(readFileSync(join(repoRoot, 'scripts', 'check-bundles.ts'), 'utf8')).not.toMatch(/coldImport|cpuUsage|performance\.now/);
  });
});
