import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import * as z from '../kernel/zod';
import { config } from '../kernel/config';
import { AppError, type FieldError } from '../kernel/errors';
import { problemResponse } from './problem';
import { corsHeaders } from './cors';
import { uuidv7 } from '../kernel/ids';
import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import { logger } from '../kernel/log';
import { withInvocationDeadline } from '../kernel/retry';
import { METRIC, recordMetric } from '../kernel/metrics';
import { observability } from '../kernel/observability';
import { hasAnyScope, type Principal } from './principal';
import { decimalPathsOf } from './decimals';
import { assertAcceptedText, assertNoFractionalNumbers, assertNoPrototypeKeys, decodeUtf8, isJsonContentType } from './json';
import { ignoresBody, invalidCodeOf, missingScopeCode, wrongPrincipalCode } from './answers';
import type { AnyRoute, RouteDefinition, RouteSchema, RouteSource } from './route';

/**
 * The one middleware stack every HTTP route passes through, in this order:
 *   Powertools' injectLambdaContext and logMetrics (../kernel/observability.ts)
 *   -> request id, correlation keys, logging and the request metrics -> problem+json errors (outermost, so nothing escapes as bare text)
 *   -> credential hook (401/403 before anything about the request is revealed)
 *   -> body guard (size, UTF-8, JSON content type, integer-only numbers and no `__proto__` key on the raw text)
 *   -> @middy/http-json-body-parser -> zod validation of params, query and body, Idempotency-Key
 *   bounds, and the route's function.
 * Middlewares share their state in middy's per-request `internal` store. Handlers (functions/)
 * receive a typed, validated request and return a status and body.
 *
 * A function names its route by a loader (`RouteSource`, ./route.ts): the manifest module of its
 * area, with the zod schemas of every route in it, is imported on the first request, not at the
 * function's import, where building them cost more than the function's own code.
 */

export const MAX_BODY_BYTES = 256 * 1024;

/** Verifies the credential of a request and resolves its principal, or throws `unauthenticated`. */
export type Authenticator = (request: { headers: Readonly<Record<string, string>>; route: AnyRoute }) => Promise<Principal>;

export interface HttpRequest<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  headers: Readonly<Record<string, string>>;
  /** Present on authenticated routes. */
  principal: Principal;
  requestId: string;
  idempotencyKey: string | undefined;
  /** The exact bytes received, for idempotency fingerprints. */
  rawBody: string;
  /**
   * Where the request came to, as a client would write it: scheme (X-Forwarded-Proto), host (Host)
   * and, on an execute-api host, the API Gateway stage (`https://abc.execute-api.eu-west-1.amazonaws.com/prod`).
   * Undefined when the Host header is not a host name or address.
   */
  origin: string | undefined;
}

export type HttpResult =
  | { status?: number; body: unknown; headers?: Record<string, string> }
  /** Exact stored bytes, for idempotent replays that must match byte for byte. */
  | { status: number; rawBody: string; headers?: Record<string, string> }
  /** A body that is not JSON (the docs page and its script), sent as the route's `response.contentType`. */
  | { status?: number; text: string; headers?: Record<string, string> };

/** The typed request a route's handler receives. */
export type RequestOf<R> =
  R extends RouteDefinition<infer P, infer Q, infer B, RouteSchema> ? HttpRequest<z.output<P>, z.output<Q>, z.output<B>> : never;

/** What the middlewares of one request share, in middy's per-request `internal` store. */
interface RequestState {
  requestId: string;
  startedAt: number;
  headers: Record<string, string>;
  /** The problem code of a refusal, once problemErrors mapped the error. */
  code?: string;
  /** The route served, loaded by requestLifecycle (unset only if loading it failed). */
  route?: AnyRoute;
  principal?: Principal;
  /** The exact body bytes received (decoded), for idempotency fingerprints. */
  rawBody: string;
  /** The JSON body, once @middy/http-json-body-parser has parsed it. */
  json?: unknown;
}

type Internal = { state?: RequestState };
type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>;
type Middleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>;

/** Until the auth issue plugs verifiers in, the credential hook admits no one. */
export const rejectAllCredentials: Authenticator = async () => {
  throw new AppError('unauthenticated', 'A valid credential is required.');
};

export interface HandlerOptions {
  authenticate?: Authenticator;
}

export function createHttpHandler<R extends AnyRoute>(
  source: RouteSource<R>,
  serve: (request: RequestOf<R>, route: R) => Promise<HttpResult>,
  options: HandlerOptions = {},
): middy.MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal> {
  const authenticate = options.authenticate ?? rejectAllCredentials;
  const route = routeLoader(source);
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>()
    .use(observability())
    .use(requestLifecycle(route))
    .use(problemErrors())
    .use(credentialHook(authenticate))
    .use(bodyGuard())
    .use(jsonBody())
    .use(routeServer(serve));
}

/** The route once per container; a failed load is not remembered (the next request tries again). */
function routeLoader<R extends AnyRoute>(source: RouteSource<R>): () => Promise<R> {
  if (typeof source !== 'function') return async () => source;
  let pending: Promise<R> | undefined;
  return () =>
    (pending ??= source().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}

function routeOf(request: Request): AnyRoute {
  const route = stateOf(request).route;
  if (!route) throw new Error('request route missing');
  return route;
}

function stateOf(request: Request): RequestState {
  if (!request.internal.state) throw new Error('request state missing');
  return request.internal.state;
}

/**
 * The request's log line (the keys appended by requestLifecycle carry its correlation ids; the
 * keys are cleared when the invocation ends) and its metrics: `Requests` by route and status class,
 * and a refusal's `Refusals` by route and problem code (../kernel/metrics.ts).
 */
function logRequest(request: Request, status: number): void {
  const state = stateOf(request);
  // A route that failed to load is named as such (its request answered 500 before any of it ran).
  const operation = state.route?.operationId ?? 'unloaded';
  logger.info('request', {
    method: request.event.httpMethod,
    path: request.event.path,
    status,
    ...(state.code === undefined ? {} : { code: state.code }),
    duration_ms: Date.now() - state.startedAt,
    principal: state.principal ? `${state.principal.kind}:${state.principal.id}` : undefined,
  });
  recordMetric(METRIC.requests, 'Count', 1, { Route: operation, StatusClass: `${Math.floor(status / 100)}xx` });
  if (status >= 400) recordMetric(METRIC.refusals, 'Count', 1, { Route: operation, Code: state.code ?? 'internal_error' });
}

/** The longest Idempotency-Key a route takes; a longer header is logged cut (it is refused anyway). */
const LOGGED_KEY_CHARS = 255;

function requestLifecycle(route: () => Promise<AnyRoute>): Middleware {
  return {
    before: async (request) => {
      const gatewayRequestId = request.event.requestContext?.requestId;
      const requestId = gatewayRequestId || uuidv7();
      const headers = lowerCaseHeaders(request.event.headers);
      const state: RequestState = { requestId, startedAt: Date.now(), headers, rawBody: '' };
      request.internal.state = state;
      // The correlation ids of every line this invocation writes (docs/runbook.md queries them).
      logger.appendKeys({
        request_id: requestId,
        ...(gatewayRequestId ? { apigw_request_id: gatewayRequestId } : {}),
        ...(headers['idempotency-key'] === undefined ? {} : { idempotency_key: headers['idempotency-key'].slice(0, LOGGED_KEY_CHARS) }),
      });
      state.route = await route();
      logger.appendKeys({ route: state.route.operationId });
    },
    // problemErrors ran first (onError runs in reverse order) and set the response; only log here.
    onError: (request) => logRequest(request, request.response?.statusCode ?? 500),
  };
}

function problemErrors(): Middleware {
  return {
    onError: (request) => {
      const error = request.error;
      if (!(error instanceof AppError)) logger.error('unhandled error', { error: error as Error });
      const state = stateOf(request);
      state.code = error instanceof AppError ? error.code : 'internal_error';
      const response = problemResponse(error, state.requestId);
      // The dashboard reads refusals too (their `code`): they carry its CORS headers as successes do.
      if (state.route) response.headers = { ...response.headers, ...corsHeaders(state.headers.origin, state.route.api) };
      request.response = response;
    },
  };
}

function credentialHook(authenticate: Authenticator): Middleware {
  return {
    before: async (request) => {
      const route = routeOf(request);
      if (route.access === 'public') return;
      const state = stateOf(request);
      const principal = await withInvocationDeadline(request.context, () => authenticate({ headers: state.headers, route }));
      state.principal = principal;
      logger.appendKeys({ principal_kind: principal.kind, ...(principal.tenantId === undefined ? {} : { tenant_id: principal.tenantId }) });
      if (!route.access.principals.includes(principal.kind)) {
        throw new AppError(wrongPrincipalCode(route.access), `This operation is not available to ${principal.kind.replace('_', ' ')} credentials.`);
      }
      if (principal.clientId !== undefined && route.access.boundKeys !== true) {
        throw new AppError('forbidden', `This API key is bound to client ${principal.clientId}: it acts on that client's routes and Explore only.`);
      }
      if (!hasAnyScope(principal, route.access.scopes)) {
        throw new AppError(missingScopeCode(route.access), `This operation needs one of the scopes: ${route.access.scopes.join(', ')}.`);
      }
    },
  };
}

/** Our refusals of malformed input speak the route's catalogue: `invalid` on the ledger. */
function inRouteCatalogue(route: AnyRoute, error: unknown): unknown {
  if (error instanceof AppError && error.code === 'invalid_request' && invalidCodeOf(route) !== 'invalid_request') {
    return new AppError(invalidCodeOf(route), error.message, { errors: error.errors });
  }
  return error;
}

/**
 * The body as bytes, before anyone parses it (on a route that reads one: ./answers.ts
 * `ignoresBody`, so the documents list 413 exactly there): at most MAX_BODY_BYTES, strict UTF-8, JSON when
 * there is one, and no number with a fraction or an exponent anywhere (amounts are integer minor
 * units, and JSON.parse cannot tell `10.0` from `10`, so the raw text is checked first) but in a
 * field the body schema declares decimal (./decimals.ts), and no character a text field does not
 * take (controls, bidirectional overrides, unpaired surrogates: ./json.ts assertAcceptedText).
 */
function bodyGuard(): Middleware {
  // Where the body schema declares a decimal field (a rate, never money): found once per route.
  let decimals: ReturnType<typeof decimalPathsOf> | undefined;
  return {
    before: (request) => {
      const state = stateOf(request);
      const route = routeOf(request);
      // An ignored body is not read at all, so neither its size nor its bytes can refuse the request.
      if (ignoresBody(route)) return;
      try {
        state.rawBody = readBody(request.event);
        if (state.rawBody.trim().length === 0) return;
        if (!isJsonContentType(state.headers['content-type'])) {
          throw new AppError('invalid_request', 'The request body must be JSON, sent with Content-Type: application/json.');
        }
        assertNoFractionalNumbers(state.rawBody, (decimals ??= decimalPathsOf(route.request.body)));
        assertNoPrototypeKeys(state.rawBody);
        assertAcceptedText(state.rawBody);
      } catch (error) {
        throw inRouteCatalogue(route, error);
      }
    },
  };
}

/**
 * JSON bodies through the design card's @middy/http-json-body-parser, handed the decoded text
 * bodyGuard accepted; its refusals (415, malformed JSON) become our invalid_request problem.
 */
function jsonBody(): Middleware {
  const parser = httpJsonBodyParser<APIGatewayProxyEvent>();
  return {
    before: async (request) => {
      const state = stateOf(request);
      const route = routeOf(request);
      if (state.rawBody.trim().length === 0 || ignoresBody(route)) return;
      request.event.body = state.rawBody;
      request.event.isBase64Encoded = false;
      // The content type bodyGuard accepted, in the one spelling the parser looks for.
      request.event.headers = { ...request.event.headers, 'content-type': 'application/json' };
      try {
        await parser.before?.(request);
      } catch {
        throw inRouteCatalogue(route, new AppError('invalid_request', 'The request body is not valid JSON.'));
      }
      state.json = request.event.body as unknown;
    },
  };
}

/**
 * The last step: zod validation of params, query and body, the Idempotency-Key bounds, then the
 * route's own function; its answer is the response (middy's early response, so no handler runs
 * after it), logged here.
 */
function routeServer<R extends AnyRoute>(serve: (request: RequestOf<R>, route: R) => Promise<HttpResult>): Middleware {
  return {
    before: async (request) => {
      const state = stateOf(request);
      const route = routeOf(request) as R;
      let parsed: Parsed;
      try {
        parsed = parseRequest(route, request.event, state);
      } catch (error) {
        throw inRouteCatalogue(route, error);
      }
      // The function's retries stop at the invocation's deadline (shared/kernel/retry.ts), not at a Lambda timeout.
      const result = await withInvocationDeadline(request.context, () => serve({
        params: parsed.params,
        query: parsed.query,
        body: parsed.body,
        headers: state.headers,
        principal: state.principal!,
        requestId: state.requestId,
        idempotencyKey: parsed.idempotencyKey,
        rawBody: state.rawBody,
        origin: requestOrigin(request.event, state.headers),
      } as RequestOf<R>, route));
      const response = toResponse(route, result, state.requestId);
      response.headers = { ...response.headers, ...corsHeaders(state.headers.origin, route.api) };
      // A remembered refusal (an idempotent write's stored outcome) is answered, not thrown: its code is in its body.
      if (response.statusCode >= 400) state.code = problemCodeOf(response.body);
      logRequest(request, response.statusCode);
      // An early response skips the after middlewares: Powertools' own cleanup (reset the keys, flush the metrics).
      await cleanupMiddlewares(request);
      return response;
    },
  };
}

function problemCodeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

interface Parsed {
  params: unknown;
  query: unknown;
  body: unknown;
  idempotencyKey: string | undefined;
}

function parseRequest(route: AnyRoute, event: APIGatewayProxyEvent, state: RequestState): Parsed {
  if (!route.request.body && state.json !== undefined && !isEmptyObject(state.json)) {
    throw new AppError('invalid_request', 'This operation takes no request body fields.');
  }
  const errors: FieldError[] = [];
  const params = validatePart(route.request.params, event.pathParameters ?? {}, 'path', errors);
  const query = validatePart(route.request.query, event.queryStringParameters ?? {}, 'query', errors);
  const body = route.request.body ? validatePart(route.request.body, state.json, 'body', errors) : undefined;
  if (errors.length > 0) {
    throw new AppError('invalid_request', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
  }
  return { params, query, body, idempotencyKey: idempotencyKeyOf(route, state.headers) };
}

const isEmptyObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

function readBody(event: APIGatewayProxyEvent): string {
  if (event.body === null || event.body === undefined) return '';
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.byteLength > MAX_BODY_BYTES) {
    throw new AppError('payload_too_large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  return event.isBase64Encoded ? decodeUtf8(bytes) : event.body;
}

/**
 * One part of the request through its schema. Through zod's own `z.safeParse`, which every request
 * of every route calls: zod's module is evaluated at the function's import (Lambda's init), not on
 * its first request, whatever else the function imports.
 */
function validatePart(schema: RouteSchema | undefined, value: unknown, part: string, errors: FieldError[]): unknown {
  if (!schema) return value;
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    errors.push({ field: fieldName(part, issue.path), message: issue.message });
  }
  return undefined;
}

/** `legs[0].amount` for body fields, `path.ledgerId` and `query.limit` for the others. */
function fieldName(part: string, path: readonly PropertyKey[]): string {
  let name = part === 'body' ? '' : part;
  for (const key of path) {
    if (typeof key === 'number') name = `${name}[${key}]`;
    else name = name === '' ? String(key) : `${name}.${String(key)}`;
  }
  return name === '' ? 'body' : name;
}

function idempotencyKeyOf(route: AnyRoute, headers: Record<string, string>): string | undefined {
  const key = headers['idempotency-key'];
  const rule = route.idempotency;
  if (!rule) return undefined;
  if (key === undefined) {
    if (rule.required) throw new AppError('invalid_request', 'The Idempotency-Key header is required for this operation.');
    return undefined;
  }
  if (key.length < rule.minLength || key.length > rule.maxLength) {
    throw new AppError(
      'invalid_request',
      `The Idempotency-Key header must be ${rule.minLength} to ${rule.maxLength} characters long.`,
      { errors: [{ field: 'header.Idempotency-Key', message: `length must be ${rule.minLength}..${rule.maxLength}` }] },
    );
  }
  return key;
}

function toResponse(route: AnyRoute, result: HttpResult, requestId: string): APIGatewayProxyResult {
  const status = result.status ?? route.response.status;
  if ('text' in result) {
    return { statusCode: status, headers: { 'content-type': `${route.response.contentType ?? 'text/plain'}; charset=utf-8`, 'x-request-id': requestId, ...result.headers }, body: result.text };
  }
  const headers = { 'content-type': 'application/json', 'x-request-id': requestId, ...result.headers };
  const body = 'rawBody' in result ? (JSON.parse(result.rawBody) as unknown) : withHasMore(route, result.body);
  if (config.VALIDATE_RESPONSES && status === route.response.status) {
    const checked = z.safeParse(route.response.body, body);
    if (!checked.success) {
      logger.error('response does not match the manifest schema', { operation: route.operationId, issues: checked.error.issues });
      throw new AppError('internal_error', 'An internal error occurred.');
    }
  }
  return { statusCode: status, headers, body: 'rawBody' in result ? result.rawBody : JSON.stringify(body) };
}

/**
 * A listing's page as answered: `has_more` placed just before `next_cursor`, on every route whose
 * response schema has both (shared/http/schemas.ts `page`). A listing's function returns
 * `next_cursor` only, and `has_more` is true exactly when it is not null: this is the one place
 * the pair is kept true. A tailing feed (schemas.ts `feedPage`) keeps a `next_cursor` to poll from
 * at its end, so its function answers `has_more` itself, and a boolean it answers is kept.
 */
function withHasMore(route: AnyRoute, body: unknown): unknown {
  const shape = (route.response.body as { shape?: Record<string, unknown> }).shape;
  if (!shape || !('has_more' in shape) || !('next_cursor' in shape)) return body;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('next_cursor' in body)) return body;
  const own = 'has_more' in body && typeof body.has_more === 'boolean' ? body.has_more : undefined;
  const answered: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (name === 'has_more') continue;
    if (name === 'next_cursor') answered.has_more = own ?? value !== null;
    answered[name] = value;
  }
  return answered;
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The base URL the request came to. API Gateway sets X-Forwarded-Proto and keeps the client's Host;
 * its default `*.execute-api.*` host carries the stage as the first path segment (a custom domain
 * does not), so the stage is added there. The embedded gateway is plain http on loopback.
 */
export function requestOrigin(event: Pick<APIGatewayProxyEvent, 'requestContext'>, headers: Record<string, string>): string | undefined {
  const host = headers.host ?? event.requestContext?.domainName;
  if (!host || !HOST.test(host)) return undefined;
  const forwarded = headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : 'http';
  const stage = event.requestContext?.stage;
  const staged = /\.execute-api\./.test(host) && stage && stage !== '$default' && /^[A-Za-z0-9_-]+$/.test(stage) ? `/${stage}` : '';
  return `${scheme}://${host}${staged}`;
}

export function lowerCaseHeaders(headers: APIGatewayProxyEvent['headers'] | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) result[name.toLowerCase()] = value;
  }
  return result;
}
