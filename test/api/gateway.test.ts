import { request as httpRequest } from 'node:http';
import { expectProblem } from '../support/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from '../../shared/kernel/zod';
import type { Platform } from '../../local/platform';
import { errorCatalogue } from '../../shared/kernel/errors';
import { createHttpHandler } from '../../shared/http/handler';
import { defineRoute, idempotencyRequired } from '../../shared/http/route';
import { amount } from '../../shared/http/schemas';
import { routes } from '../../shared/routes';
import { call, startTestPlatform, type CallResult } from '../support/platform';
import { staffToken } from '../support/credentials';

// Routes that exist only in this test: a public body route to exercise the request pipeline, and
// an authenticated one to show the credential hook refuses everyone until verifiers are plugged in.
const echoRoute = defineRoute({
  operationId: 'testEcho',
  method: 'POST',
  path: '/v1/test/echo/{echoId}',
  api: 'wallet',
  handler: 'test/echo',
  summary: 'echo',
  tags: ['test'],
  access: 'public',
  request: {
    params: z.object({ echoId: z.uuid() }),
    body: z.strictObject({ amount, note: z.optional(z.string().check(z.maxLength(10))) }),
  },
  response: { status: 201, body: z.object({ amount: z.int(), echo_id: z.string() }), description: 'echo' },
  errors: [],
  idempotency: idempotencyRequired(),
  tables: {},
});
const guardedRoute = defineRoute({
  ...echoRoute,
  operationId: 'testGuarded',
  method: 'GET',
  path: '/v1/test/guarded',
  handler: 'test/guarded',
  access: { principals: ['api_key'], scopes: [] },
  request: {},
  idempotency: undefined,
});
const crashRoute = defineRoute({ ...guardedRoute, operationId: 'testCrash', path: '/v1/test/crash', handler: 'test/crash', access: 'public' });
// Named by a loader, as functions/ name their routes: the first load fails, the next ones succeed.
const lazyEchoRoute = defineRoute({ ...echoRoute, operationId: 'testLazyEcho', path: '/v1/test/lazy-echo/{echoId}', handler: 'test/lazy-echo' });
let lazyEchoLoads = 0;

const testHandlers: Record<string, unknown> = {
  'test/echo': createHttpHandler(echoRoute, async ({ body, params }) => ({ body: { amount: body.amount, echo_id: params.echoId } })),
  'test/guarded': createHttpHandler(guardedRoute, async () => ({ body: {} })),
  'test/crash': createHttpHandler(crashRoute, async () => {
    throw new Error('secret table name wallet-prod-xyz');
  }),
  'test/lazy-echo': createHttpHandler(
    async () => {
      lazyEchoLoads += 1;
      if (lazyEchoLoads === 1) throw new Error('the route module failed to load');
      return lazyEchoRoute;
    },
    async ({ body, params }) => ({ body: { amount: body.amount, echo_id: params.echoId } }),
  ),
};

const ECHO = '/v1/test/echo/0199a1fc-8554-7abe-92b9-6f9c4e64e589';
const idem = { 'idempotency-key': 'k-1' };

let platform: Platform;
let base: string;

beforeAll(async () => {
  const { loadHandler } = await import('../../local/gateway');
  platform = await startTestPlatform({
    routes: [...routes, echoRoute, guardedRoute, crashRoute, lazyEchoRoute],
    handlerFor: async (entry) => testHandlers[entry] ?? loadHandler(entry),
  });
  base = platform.urls.public;
});

afterAll(() => platform?.stop());

/** The catalogue's problem, answered for this very request (fresh request id, a detail). */
function expectFreshProblem(result: CallResult<any>, code: keyof typeof errorCatalogue) {
  expectProblem(result, code);
  expect(result.body.status).toBe(errorCatalogue[code].status);
  expect(result.body.request_id).toBe(result.headers.get('x-request-id'));
  expect(typeof result.body.detail).toBe('string');
}

describe('a route named by a loader', () => {
  it('is loaded on the first request, validated as any route, and a failed load is tried again by the next request', async () => {
    const path = '/v1/test/lazy-echo/0199a1fc-8554-7abe-92b9-6f9c4e64e589';
    expect(lazyEchoLoads).toBe(0);
    expectFreshProblem(await call(base, 'POST', path, { body: { amount: 5 }, headers: idem }), 'internal_error');
    const served = await call(base, 'POST', path, { body: { amount: 5 }, headers: idem });
    expect(served.status, served.text).toBe(201);
    expect(served.body).toEqual({ amount: 5, echo_id: '0199a1fc-8554-7abe-92b9-6f9c4e64e589' });
    expectProblem(await call(base, 'POST', path, { body: { amount: 5, note: 'far too long a note' }, headers: idem }), 'invalid_request');
    expectProblem(await call(base, 'POST', path, { body: { amount: 5 } }), 'invalid_request');
    expect(lazyEchoLoads).toBe(2);
  });
});

describe('OpenAPI documents', () => {
  it('are served at /openapi.json by each API, the console included', async () => {
    for (const [url, title] of [
      [platform.urls.public, 'Wallet and Auth API'],
      [platform.urls.ledger, 'Ledger API'],
      [platform.urls.console, 'Console API'],
    ] as const) {
      const served = await call(url, 'GET', '/openapi.json');
      expect(served.status, served.text).toBe(200);
      expect(served.body).toMatchObject({ openapi: '3.0.3', info: { title } });
      // Its first server is where the request came to: this port, not the committed default.
      expect(served.body.servers[0].url).toBe(url);
      expect(served.body.servers[1].url).toMatch(/^\{\w+\}$/);
    }
  });

  it('name as their server the host, scheme and API Gateway stage the request came with', async () => {
    const serverOf = (headers: Record<string, string>) =>
      new Promise<unknown>((resolve, reject) => {
        const request = httpRequest(`${platform.urls.public}/openapi.json`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { servers: { url: string }[] }).servers[0]!.url));
        });
        request.on('error', reject);
        request.end();
      });
    // The execute-api host carries the stage (here the embedded gateway's, `local`); a custom domain does not.
    expect(await serverOf({ host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'x-forwarded-proto': 'https' })).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/local');
    expect(await serverOf({ host: 'api.wallet.example', 'x-forwarded-proto': 'https' })).toBe('https://api.wallet.example');
    expect(await serverOf({ host: 'api.wallet.example:8443', 'x-forwarded-proto': 'gopher' })).toBe('http://api.wallet.example:8443');
    // A Host that is no host name is not echoed: the committed templated server stays first.
    expect(await serverOf({ host: 'evil.example/phish?' })).toBe('{base_url}');
  });
});

describe('probes', () => {
  it('answers /healthz without a credential on the wallet and ledger APIs, and /version without one on the ledger API only', async () => {
    for (const url of [platform.urls.public, platform.urls.ledger]) {
      const health = await call(url, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok' });
    }
    const version = await call(platform.urls.ledger, 'GET', '/version');
    expect(version.status).toBe(200);
    expect(version.body).toMatchObject({ stage: 'local', version: expect.any(String) });
    // The spec exempts only /healthz from credentials on the wallet API.
    expectProblem(await call(platform.urls.public, 'GET', '/version'), 'unauthenticated');
    const staff = await staffToken(platform, { role: 'platform' });
    const walletVersion = await call(platform.urls.public, 'GET', '/version', { token: staff });
    expect(walletVersion.status, walletVersion.text).toBe(200);
    expect(walletVersion.body).toEqual(version.body);
  });

  it('binds every listener to loopback only', () => {
    for (const url of Object.values(platform.urls)) expect(new URL(url).hostname).toBe('127.0.0.1');
  });
});

describe('the request pipeline', () => {
  it('passes a valid request through to the handler', async () => {
    const result = await call(base, 'POST', ECHO, { body: { amount: 1250 }, headers: idem });
    expect(result.status).toBe(201);
    expect(result.body).toEqual({ amount: 1250, echo_id: '0199a1fc-8554-7abe-92b9-6f9c4e64e589' });
  });

  it('refuses malformed JSON with invalid_request', async () => {
    const result = await call(base, 'POST', ECHO, { rawBody: '{"amount": 12', headers: { ...idem, 'content-type': 'application/json' } });
    expectFreshProblem(result, 'invalid_request');
    expect(result.body.detail).toMatch(/not valid JSON/);
  });

  it('refuses a body sent with a non-JSON content type', async () => {
    const result = await call(base, 'POST', ECHO, { rawBody: 'amount=12', headers: { ...idem, 'content-type': 'application/x-www-form-urlencoded' } });
    expectFreshProblem(result, 'invalid_request');
    expect(result.body.detail).toMatch(/Content-Type: application\/json/);
  });

  it.each([['10.5'], ['10.0'], ['1e3']])('refuses the non-integer amount %s', async (literal) => {
    const result = await call(base, 'POST', ECHO, { rawBody: `{"amount": ${literal}}`, headers: { ...idem, 'content-type': 'application/json' } });
    expectFreshProblem(result, 'invalid_request');
    expect(result.body.detail).toMatch(/integers/);
  });

  it('refuses a string amount with a per-field detail', async () => {
    const result = await call(base, 'POST', ECHO, { body: { amount: '10' }, headers: idem });
    expectFreshProblem(result, 'invalid_request');
    expect(result.body.errors).toEqual([{ field: 'amount', message: expect.any(String) }]);
  });

  it('names every invalid field, in the path and the body', async () => {
    const result = await call(base, 'POST', '/v1/test/echo/not-a-uuid', { body: { amount: 5, note: 'far too long a note', extra: 1 }, headers: idem });
    expectFreshProblem(result, 'invalid_request');
    const fields = result.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['body', 'note', 'path.echoId']);
  });

  it('ignores decimals inside strings', async () => {
    const result = await call(base, 'POST', ECHO, { body: { amount: 3, note: '10.5' }, headers: idem });
    expect(result.status).toBe(201);
  });

  it('requires the Idempotency-Key header where the manifest says so, within its length bounds', async () => {
    expectFreshProblem(await call(base, 'POST', ECHO, { body: { amount: 1 } }), 'invalid_request');
    const long = await call(base, 'POST', ECHO, { body: { amount: 1 }, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expectFreshProblem(long, 'invalid_request');
    expect(long.body.errors[0].field).toBe('header.Idempotency-Key');
  });

  it('refuses a body that is not UTF-8', async () => {
    const bytes = Buffer.concat([Buffer.from('{"amount": 1, "note": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const result = await call(base, 'POST', ECHO, { rawBody: bytes, headers: { ...idem, 'content-type': 'application/json' } });
    expectFreshProblem(result, 'invalid_request');
  });

  it('refuses an oversized body with payload_too_large', async () => {
    const result = await call(base, 'POST', ECHO, { body: { amount: 1, note: 'x'.repeat(300_000) }, headers: idem });
    expectFreshProblem(result, 'payload_too_large');
  });

  it('answers an unknown path with not_found', async () => {
    expectFreshProblem(await call(base, 'GET', '/v1/nothing/here'), 'not_found');
  });

  it('answers a wrong method with method_not_allowed and an Allow header', async () => {
    const result = await call(base, 'DELETE', '/healthz');
    expectFreshProblem(result, 'method_not_allowed');
    expect(result.headers.get('allow')).toBe('GET');
  });

  it('does not serve ledger routes on the public listener, nor wallet routes on the ledger listener', async () => {
    expectFreshProblem(await call(platform.urls.ledger, 'POST', ECHO, { body: { amount: 1 }, headers: idem }), 'not_found');
  });

  it('refuses every credential on an authenticated route until verifiers are plugged in', async () => {
    expectFreshProblem(await call(base, 'GET', '/v1/test/guarded'), 'unauthenticated');
    expectFreshProblem(await call(base, 'GET', '/v1/test/guarded', { token: 'sk_sandbox_abc_def' }), 'unauthenticated');
  });

  it('answers an unexpected failure with internal_error and leaks nothing', async () => {
    const result = await call(base, 'GET', '/v1/test/crash');
    expectFreshProblem(result, 'internal_error');
    expect(result.text).not.toMatch(/secret|wallet-prod|Error:|at /);
  });
});
