import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import { config } from '../kernel/config';
import { AppError, type ErrorCode, type FieldError } from '../kernel/errors';
import { problemResponse } from './problem';
import { uuidv7 } from '../kernel/ids';
import { logger } from '../kernel/log';
import { hasAnyScope, type Principal } from './principal';
import { decodeUtf8, isJsonContentType, parseJsonBody } from './json';
import type { AnyRoute, RouteDefinition } from './route';

/**
 * The one middleware stack every HTTP route passes through, in this order:
 *   request id and logging -> problem+json errors (outermost, so nothing escapes as bare text)
 *   -> credential hook (401/403 before anything about the request is revealed)
 *   -> JSON body parsing -> zod validation of params, query and body -> Idempotency-Key bounds.
 * Handlers (functions/) receive a typed, validated request and return a status and body.
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
}

export type HttpResult =
  | { status?: number; body: unknown; headers?: Record<string, string> }
  /** Exact stored bytes, for idempotent replays that must match byte for byte. */
  | { status: number; rawBody: string; headers?: Record<string, string> };

/** The typed request a route's handler receives. */
export type RequestOf<R> =
  R extends RouteDefinition<infer P, infer Q, infer B, z.ZodType> ? HttpRequest<z.output<P>, z.output<Q>, z.output<B>> : never;

interface State {
  requestId: string;
  startedAt: number;
  headers: Record<string, string>;
  principal?: Principal;
  parsed?: { params: unknown; query: unknown; body: unknown; rawBody: string; idempotencyKey: string | undefined };
}

type MiddyRequest = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> & { state?: State };

/** Until the auth issue plugs verifiers in, the credential hook admits no one. */
export const rejectAllCredentials: Authenticator = async () => {
  throw new AppError('unauthenticated', 'A valid credential is required.');
};

export interface HandlerOptions {
  authenticate?: Authenticator;
}

export function createHttpHandler<R extends AnyRoute>(
  route: R,
  serve: (request: RequestOf<R>) => Promise<HttpResult>,
  options: HandlerOptions = {},
): middy.MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  const authenticate = options.authenticate ?? rejectAllCredentials;
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(requestLifecycle())
    .use(problemErrors())
    .use(credentialHook(route, authenticate))
    .use(requestParsing(route))
    .handler(async (_event, context) => {
      const request = (context as unknown as { __state: State }).__state;
      const parsed = request.parsed!;
      const result = await serve({
        params: parsed.params,
        query: parsed.query,
        body: parsed.body,
        headers: request.headers,
        principal: request.principal!,
        requestId: request.requestId,
        idempotencyKey: parsed.idempotencyKey,
        rawBody: parsed.rawBody,
      } as RequestOf<R>);
      return toResponse(route, result, request.requestId);
    });
}

function stateOf(request: MiddyRequest): State {
  const holder = request.context as unknown as { __state?: State };
  if (!holder.__state) throw new Error('request state missing');
  return holder.__state;
}

function requestLifecycle(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  const finish = (request: MiddyRequest) => {
    const state = stateOf(request);
    const status = request.response?.statusCode ?? 500;
    logger.info('request', {
      method: request.event.httpMethod,
      path: request.event.path,
      status,
      duration_ms: Date.now() - state.startedAt,
      principal: state.principal ? `${state.principal.kind}:${state.principal.id}` : undefined,
    });
    logger.resetKeys();
  };
  return {
    before: (request) => {
      const requestId = request.event.requestContext?.requestId || uuidv7();
      const state: State = { requestId, startedAt: Date.now(), headers: lowerCaseHeaders(request.event.headers) };
      (request.context as unknown as { __state: State }).__state = state;
      logger.appendKeys({ request_id: requestId });
    },
    after: finish,
    onError: (request) => {
      // problemErrors ran first (reverse order) and set the response; only log here.
      finish(request);
    },
  };
}

function problemErrors(): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  return {
    onError: (request) => {
      const state = stateOf(request);
      const error = request.error;
      if (!(error instanceof AppError)) {
        logger.error('unhandled error', { error: error as Error });
      }
      request.response = problemResponse(error, state.requestId);
    },
  };
}

function credentialHook(
  route: AnyRoute,
  authenticate: Authenticator,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  return {
    before: async (request) => {
      if (route.access === 'public') return;
      const state = stateOf(request);
      const principal = await authenticate({ headers: state.headers, route });
      state.principal = principal;
      logger.appendKeys({ principal_kind: principal.kind });
      if (!route.access.principals.includes(principal.kind)) {
        const code: ErrorCode = route.access.wrongPrincipal ?? 'forbidden';
        throw new AppError(code, `This operation is not available to ${principal.kind.replace('_', ' ')} credentials.`);
      }
      if (!hasAnyScope(principal, route.access.scopes)) {
        throw new AppError(route.access.missingScope ?? 'insufficient_scope', `This operation needs one of the scopes: ${route.access.scopes.join(', ')}.`);
      }
    },
  };
}

/** The ledger API answers malformed input with its own catalogue code, `invalid`. */
const invalidCodeOf = (route: AnyRoute): ErrorCode => (route.api === 'ledger' ? 'invalid' : 'invalid_request');

function requestParsing(route: AnyRoute): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  return {
    before: (request) => {
      try {
        parseRequest(route, request);
      } catch (error) {
        if (error instanceof AppError && error.code === 'invalid_request' && invalidCodeOf(route) !== 'invalid_request') {
          throw new AppError(invalidCodeOf(route), error.message, { errors: error.errors });
        }
        throw error;
      }
    },
  };
}

function parseRequest(route: AnyRoute, request: MiddyRequest): void {
  const state = stateOf(request);
  const { event } = request;
  const rawBody = readBody(event);
  const body = route.request.body ? parseBody(rawBody, state.headers['content-type']) : undefined;
  if (!route.request.body && rawBody.length > 0 && route.method !== 'GET' && route.method !== 'DELETE') {
    throw new AppError('invalid_request', 'This operation takes no request body.');
  }
  const errors: FieldError[] = [];
  const params = validatePart(route.request.params, event.pathParameters ?? {}, 'path', errors);
  const query = validatePart(route.request.query, event.queryStringParameters ?? {}, 'query', errors);
  const validBody = route.request.body ? validatePart(route.request.body, body, 'body', errors) : undefined;
  if (errors.length > 0) {
    throw new AppError('invalid_request', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors });
  }
  state.parsed = { params, query, body: validBody, rawBody, idempotencyKey: idempotencyKeyOf(route, state.headers) };
}

function readBody(event: APIGatewayProxyEvent): string {
  if (event.body === null || event.body === undefined) return '';
  const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (bytes.byteLength > MAX_BODY_BYTES) {
    throw new AppError('payload_too_large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  return event.isBase64Encoded ? decodeUtf8(bytes) : event.body;
}

function parseBody(rawBody: string, contentType: string | undefined): unknown {
  if (rawBody.trim().length === 0) return undefined;
  if (!isJsonContentType(contentType)) {
    throw new AppError('invalid_request', 'The request body must be JSON, sent with Content-Type: application/json.');
  }
  return parseJsonBody(rawBody);
}

function validatePart(schema: z.ZodType | undefined, value: unknown, part: string, errors: FieldError[]): unknown {
  if (!schema) return value;
  const result = schema.safeParse(value);
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
  const headers = { 'content-type': 'application/json', 'x-request-id': requestId, ...result.headers };
  const body = 'rawBody' in result ? (JSON.parse(result.rawBody) as unknown) : result.body;
  if (config.VALIDATE_RESPONSES && status === route.response.status) {
    const checked = route.response.body.safeParse(body);
    if (!checked.success) {
      logger.error('response does not match the manifest schema', { operation: route.operationId, issues: checked.error.issues });
      throw new AppError('internal_error', 'An internal error occurred.');
    }
  }
  return { statusCode: status, headers, body: 'rawBody' in result ? result.rawBody : JSON.stringify(body) };
}

export function lowerCaseHeaders(headers: APIGatewayProxyEvent['headers'] | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) result[name.toLowerCase()] = value;
  }
  return result;
}
