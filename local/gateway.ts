import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join, resolve } from 'node:path';
import { setImmediate as nextTurn, setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { AppError } from '../shared/kernel/errors';
import { routeTable, unroutedResponse } from '../shared/http/fallback';
import { gateways, type GatewayName, type ThrottleSettings } from '../shared/http/gateways';
import { problemResponse } from '../shared/http/problem';
import { ROUTE_TIMEOUT_SECONDS, type AnyRoute } from '../shared/http/route';
import { uuidv7 } from '../shared/kernel/ids';
import { systemClock, type Clock } from '../shared/kernel/clock';
import { workerContext } from './drivers/context';
import { inInvocation } from './drivers/invocations';
import { listenError } from './ports';
import { bucketKey, TokenBuckets } from './throttle';

/**
 * The local API Gateway: turns each HTTP request into the REST (v1) proxy event API Gateway would
 * send, invokes the route's Lambda handler in process, and writes its result back. Requests no
 * route serves get the same 404/405 problem+json the AWS fallback function answers. It throttles
 * as the AWS stage does (429 rate_limited, ./throttle.ts) and caps each route's requests in
 * flight as its reserved concurrency does (503 bulkhead_full).
 */

/** API Gateway's own payload limit; the handlers refuse far smaller bodies themselves. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
const ROOT = resolve(import.meta.dirname, '..');

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** Loads a handler the way Lambda would: import the entry module, take its `handler` export. */
/** Where scripts/run.mjs put the compiled functions, when it runs the platform from its bundle. */
const COMPILED_FUNCTIONS = Symbol.for('wallet.local.compiledFunctions');

export async function loadHandler(entry: string): Promise<LambdaHandler> {
  const compiled = (globalThis as Record<symbol, unknown>)[COMPILED_FUNCTIONS];
  const file = typeof compiled === 'string' ? join(compiled, `${entry}.js`) : resolve(ROOT, 'functions', `${entry}.ts`);
  const module = (await import(pathToFileURL(file).href)) as { handler?: LambdaHandler };
  if (typeof module.handler !== 'function') throw new Error(`functions/${entry}.ts does not export a handler`);
  return module.handler;
}

export interface GatewayOptions {
  gateway: GatewayName;
  routes: readonly AnyRoute[];
  port: number;
  host?: string;
  /** Overrides handler loading (tests register routes whose handlers live in the test). */
  handlerFor?: (route: AnyRoute) => Promise<LambdaHandler>;
  /**
   * Each route's bulkhead here: requests in flight per route beyond which the gateway answers 503
   * bulkhead_full (in AWS the function's reserved concurrency, shared/http/bulkheads.ts).
   */
  maxInFlightPerRoute?: number;
  /**
   * The throttle: per method and credential, API Gateway's token bucket (./throttle.ts); beyond
   * it the gateway answers 429 rate_limited with Retry-After. Absent or null: none.
   */
  throttle?: ThrottleSettings | null;
  /** The time the throttle's buckets refill by (the platform's clock). */
  clock?: Clock;
}

/** Generous on a laptop: it protects the process, not a Lambda quota. GATEWAY_MAX_IN_FLIGHT changes it. */
export const DEFAULT_MAX_IN_FLIGHT_PER_ROUTE = 256;

/** How long an idle keep-alive connection stays open (the server side of the race a client must never lose). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface LocalGateway {
  name: GatewayName;
  url: string;
  port: number;
  /**
   * Stops accepting connections and closes the idle ones; with `drainMs`, waits up to that long for
   * the requests in flight to be answered before closing what is left (otherwise closes at once).
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<LocalGateway> {
  const host = options.host ?? '127.0.0.1';
  const table = routeTable(options.routes, options.gateway);
  const handlers = new Map<string, Promise<LambdaHandler>>();
  const handlerFor = options.handlerFor ?? ((route: AnyRoute) => loadHandler(route.handler));
  const handlerOf = (route: AnyRoute) => {
    let handler = handlers.get(route.operationId);
    if (!handler) {
      handler = handlerFor(route);
      handlers.set(route.operationId, handler);
    }
    return handler;
  };

  const maxInFlight = options.maxInFlightPerRoute ?? DEFAULT_MAX_IN_FLIGHT_PER_ROUTE;
  const inFlight = new Map<string, number>();
  const buckets = options.throttle ? new TokenBuckets(options.throttle, options.clock ?? systemClock) : undefined;

  /** Requests being served (read, run or answered), which a draining close waits for. */
  let active = 0;
  const server = createServer((req, res) => {
    active += 1;
    serve(req, res)
      .catch((error: unknown) => {
        writeResult(res, problemResponse(error, uuidv7()));
      })
      .finally(() => {
        active -= 1;
        // Once closing, an answered keep-alive connection is not kept for another request.
        if (!server.listening) res.socket?.end();
      });
  });
  server.on('clientError', answerMalformed);
  // Idle keep-alive connections outlive any client's (undici keeps one 4 s after a 5 s hint): with
  // Node's 5 s default, a busy machine's client reused a socket the server had just closed, and
  // the request died with ECONNRESET. As a load balancer does (ALB: 60 s), the server closes last.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = uuidv7();
    const url = new URL(req.url ?? '/', 'http://local');
    const method = (req.method ?? 'GET').toUpperCase();
    const found = table.match(method, url.pathname);
    if (!found || 'allowed' in found) {
      req.resume();
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, lastHeader(value)]));
      writeResult(res, unroutedResponse(found ? found.allowed : null, method, url.pathname, requestId, { gateway: options.gateway, headers }));
      return;
    }
    const body = await readBody(req);
    if (body === 'too_large') {
      writeResult(res, problemResponse(new AppError('payload_too_large', 'The request body is too large.'), requestId));
      return;
    }
    const operation = found.route.operationId;
    // API Gateway throttles a method before anything runs for it, as here before the bulkhead.
    const throttled = buckets?.take(bucketKey(operation, lastHeader(req.headers.authorization), req.socket.remoteAddress));
    if (throttled && !throttled.admitted) {
      const limited = new AppError('rate_limited', 'Too many requests; retry later.', { headers: { 'retry-after': String(throttled.retryAfterSeconds) } });
      writeResult(res, problemResponse(limited, requestId));
      return;
    }
    const running = inFlight.get(operation) ?? 0;
    if (running >= maxInFlight) {
      const full = new AppError('bulkhead_full', `${operation} is at its concurrency limit (${maxInFlight}); retry shortly.`, { headers: { 'retry-after': '1' } });
      writeResult(res, problemResponse(full, requestId));
      return;
    }
    inFlight.set(operation, running + 1);
    try {
      const event = proxyEvent(req, url, method, found.route, found.params, body, requestId, options.gateway);
      const handler = await handlerOf(found.route);
      const context = lambdaContext(found.route, requestId);
      const result = await inInvocation(context, () => handler(event, context));
      writeResult(res, result);
    } finally {
      inFlight.set(operation, (inFlight.get(operation) ?? 1) - 1);
    }
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options.port, `the ${gateways[options.gateway].description}`, gateways[options.gateway].localPortEnv)));
    server.listen(options.port, host, () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    name: options.gateway,
    url: `http://${host}:${port}`,
    port,
    close: async ({ drainMs = 0 } = {}) => {
      // What the kernel already holds is read first: the poll phase of two turns of the event loop
      // accepts the connections waiting in the backlog and parses the requests waiting in their
      // buffers, which then count as in flight. Closing at once would reset them as idle.
      for (let turn = 0; turn < 2; turn += 1) await nextTurn();
      const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
      server.closeIdleConnections();
      const deadline = Date.now() + drainMs;
      while (active > 0 && Date.now() < deadline) await delay(20);
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * A request Node cannot parse never reaches a route: headers over Node's 16 KiB limit, a bad
 * request line, a broken chunked body. Node would answer with a bare status line; the platform
 * answers every error as problem+json, so this writes one on the socket and closes it.
 * (What API Gateway does with the same requests: docs/security.md.)
 */
function answerMalformed(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('headers_too_large', 'The request headers exceed 16 KiB.')
      : new AppError('invalid_request', 'The request is not valid HTTP/1.1.');
  const result = problemResponse(problem, uuidv7());
  const body = Buffer.from(result.body, 'utf8');
  const head = [
    `HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode] ?? 'Error'}`,
    ...Object.entries(result.headers ?? {}).map(([name, value]) => `${name}: ${String(value)}`),
    `content-length: ${body.length}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** A header as the proxy event carries it: the last value when sent more than once. */
const lastHeader = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[value.length - 1] : value);

function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolveBody(tooLarge ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function proxyEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  route: AnyRoute,
  params: Record<string, string>,
  body: Buffer,
  requestId: string,
  gateway: GatewayName,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    headers[name] = values[values.length - 1]!;
    multiValueHeaders[name] = values;
  }
  const query: Record<string, string> = {};
  const multiValueQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiValueQuery[name] ??= []).push(value);
  }
  // API Gateway hands text bodies over as strings; bytes that are not UTF-8 arrive base64 encoded
  // here so the handler, not the gateway, decides they are invalid.
  const text = body.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(body);
  const now = Date.now();
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: url.searchParams.size > 0 ? query : null,
    multiValueQueryStringParameters: url.searchParams.size > 0 ? multiValueQuery : null,
    pathParameters: Object.keys(params).length > 0 ? params : null,
    stageVariables: null,
    body: body.length === 0 ? null : isText ? text : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
    requestContext: {
      accountId: '000000000000',
      apiId: `local-${gateway}`,
      authorizer: null,
      domainName: req.headers.host ?? 'localhost',
      domainPrefix: 'local',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/local${url.pathname}`,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTime: new Date(now).toUTCString(),
      requestTimeEpoch: now,
      resourceId: route.operationId,
      resourcePath: route.path,
      stage: 'local',
    },
  };
}

function lambdaContext(route: AnyRoute, requestId: string): Context {
  return workerContext(route.operationId, route.function?.timeoutSeconds ?? ROUTE_TIMEOUT_SECONDS, requestId, route.function?.memoryMb);
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | number | boolean | string[]> = { ...result.headers };
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  res.writeHead(result.statusCode, { ...headers, 'content-length': body.length });
  res.end(body);
}
