import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle, CHUNKS, entryOutputOf, functionInputs, functionOutputs, handlerEntries, HANDLER_FILES, repoRoot, SDK_EXPORTS, type BundleResult } from '../../scripts/bundle';
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

// One esbuild build per function (scripts/bundle.ts): bounded work, about a minute and a half on
// two busy cores; given room for two suites side by side.
beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
  result = await bundle({ outdir });
}, 900_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The modules one function's JavaScript carries, its chunks' included. */
const inputsOf = (handler: string) => functionInputs(result.metafile, entryOutputOf(result.metafile, handler));

/** The files a function's import loads: index.mjs and the chunks it imports statically. */
const outputsAtImport = (handler: string) => functionOutputs(result.metafile, entryOutputOf(result.metafile, handler), { atImport: true });

/** The modules a function evaluates at its import (not those of the chunks it loads on first use). */
const inputsAtImport = (handler: string) => functionInputs(result.metafile, entryOutputOf(result.metafile, handler), { atImport: true });

/** The JavaScript files of one function's directory: index.mjs and its chunks. */
const scriptsOf = (handler: string): string[] => {
  const dir = join(outdir, handler);
  const chunks = existsSync(join(dir, CHUNKS)) ? readdirSync(join(dir, CHUNKS)).filter((file) => file.endsWith('.mjs')) : [];
  return [join(dir, 'index.mjs'), ...chunks.map((file) => join(dir, CHUNKS, file))];
};

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

  it("makes each function's directory whole: every file its JavaScript imports is in it, with its map, and its size counts them all", () => {
    for (const handler of handlerEntries()) {
      const dir = join(outdir, handler);
      let bytes = 0;
      for (const file of scriptsOf(handler)) {
        const code = readFileSync(file, 'utf8');
        bytes += Buffer.byteLength(code);
        expect(existsSync(`${file}.map`), file).toBe(true);
        for (const [, specifier] of code.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
          const target = resolve(dirname(file), specifier!);
          expect(target.startsWith(`${dir}/`), `${relative(outdir, file)} imports ${specifier}`).toBe(true);
          expect(existsSync(target), `${relative(outdir, file)} imports ${specifier}`).toBe(true);
        }
      }
      expect(bytes, handler).toBe(result.sizes[handler]);
    }
    // Nothing shipped that no file loads: @aws-sdk/core's browser user-agent parser.
    expect(handlerEntries().filter((handler) => inputsOf(handler).some((input) => input.includes('node_modules/bowser/')))).toEqual([]);
  });

  it('loads what a route needs only on its first request: its schemas are a chunk of their own', () => {
    const code = readFileSync(join(outdir, 'transfers', 'create-transfer', 'index.mjs'), 'utf8');
    expect(code).toMatch(/import\("\.\/_chunks\/routes-[A-Z0-9]+\.mjs"\)/);
    // No function builds request schemas at import: no module of schemas is reached without an
    // import() (a record's codec taking an enumeration from its area's schemas.ts once did, 3 ms).
    const eager = handlerEntries().flatMap((handler) => inputsAtImport(handler).filter((input) => /(^|\/)(schemas|routes)\.ts$/.test(input)).map((input) => `${handler}: ${input}`));
    expect(eager).toEqual([]);
  });

  it('imports at a cold start no Node.js builtin whose ES namespace loads what the function never uses', () => {
    // On Node.js 24 an ES import of a builtin reads every export of its namespace, and these have
    // lazy ones: node:http's WebSocket loads undici, http2 and worker_threads (about 20 ms of CPU),
    // node:util's parseArgs and diff (about 1 ms). Code takes them through process.getBuiltinModule
    // (docs/performance.md). middy's node:stream/web stays: the SDK's first call tests its request
    // body against the global ReadableStream, which loads most of it then; moved, not saved.
    const trapped = new Set(['node:http', 'node:util', 'node:sys']);
    const found = handlerEntries().flatMap((handler) =>
      outputsAtImport(handler).flatMap((file) => result.metafile.outputs[file]!.imports.filter((imported) => imported.kind === 'import-statement' && trapped.has(imported.path)).map((imported) => `${handler}: ${imported.path}`)),
    );
    expect(found).toEqual([]);
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
      // Nothing left for the runtime to resolve: the SDK is in the bundle, pinned.
      for (const file of scriptsOf(handler)) expect(readFileSync(file, 'utf8'), file).not.toMatch(/from\s*["']@aws-sdk\//);
    }
    // Every function that reads or writes a table carries the DynamoDB client and util-dynamodb's
    // translation (shared/aws/dynamodb.ts), and nothing of lib-dynamodb's runtime.
    expect(inputsOf('transfers/create-transfer')).toEqual(expect.arrayContaining(['sdk-exports:@aws-sdk/client-dynamodb', 'sdk-exports:@aws-sdk/util-dynamodb']));
    expect(inputs.filter((input) => input.includes('node_modules/@aws-sdk/lib-dynamodb/'))).toEqual([]);
    // No index of an SDK package (which re-exports every command), and no command the platform does not send.
    const commands = inputs.filter((input) => /node_modules\/@aws-sdk\/(client-[a-z-]+|lib-dynamodb)\/dist-es\/commands\/\w+Command\.js$/.test(input)).map((input) => input.replace(/.*@aws-sdk\/([a-z-]+)\/dist-es\/commands\/(\w+)\.js$/, '@aws-sdk/$1 $2'));
    const allowed = [
      ...Object.entries(SDK_EXPORTS).flatMap(([pkg, names]) => Object.keys(names).filter((name) => name.endsWith('Command')).map((name) => `${pkg} ${name}`)),
      // The DynamoDB client's own: its endpoint discovery (off unless configured) names it.
      '@aws-sdk/client-dynamodb DescribeEndpointsCommand',
    ];
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.filter((command) => !allowed.includes(command))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/@aws-sdk\/(client-[a-z-]+|util-dynamodb)\/dist-es\/index\.js$/.test(input))).toEqual([]);
    // The clients besides DynamoDB only where a function calls them: EventBridge in the relay alone.
    const withEventBridge = handlerEntries().filter((handler) => inputsOf(handler).includes('sdk-exports:@aws-sdk/client-eventbridge'));
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
    const carriers = handlerEntries().filter((handler) => inputsOf(handler).some((input) => /shared\/wallet\/auth\/(staff|passwords)\.ts$/.test(input)));
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
        for (const script of scriptsOf(handler)) expect(readFileSync(script, 'utf8').includes(marker), script).toBe(false);
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

  it('holds every bundle to the size budget in npm test (600 KiB), naming the function over, and measures no time there', () => {
    // This test is where `npm test` holds the budget: it bundles every function once (the bundle
    // above), as `npm run check:bundles` does on its own. Import times live in `npm run bench:cold`.
    expect(budget).toEqual({ $comment: expect.any(String), max_bytes: 600 * 1024 });
    expect(bundlesOverBudget(result.sizes, budget)).toEqual([]);
    expect(bundlesOverBudget({ 'quick/fn': 1024, 'large/fn': budget.max_bytes + 1, 'edge/fn': budget.max_bytes }, budget)).toEqual(['large/fn']);
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.test).toMatch(/vitest run$/);
    for (const file of ['scripts/check-bundles.ts', 'test/infra/bundle.test.ts']) {
      expect(readFileSync(join(repoRoot, file), 'utf8'), file).not.toMatch(new RegExp(['cold' + 'Import', 'cpu' + 'Usage', 'performance' + '\\.now'].join('|')));
    }
  });
});
