import type * as z from 'zod';
import { errorCatalogue, PROBLEM_CONTENT_TYPE, problemType, retryableCodes, type ErrorCode } from '../../kernel/errors';
import { gatewayOf, gateways, type GatewayName } from '../gateways';
import type { AnyRoute } from '../route';
import { problem } from '../schemas';

import { compare, isObject, SchemaCollector, sortKeys, type JsonObject, type OpenApiDocument } from './schemas';

/**
 * The OpenAPI 3.0.3 description of one gateway, generated from the route manifest: the third
 * consumer of shared/routes.ts (DESIGN.md "One manifest, three consumers"). Nothing here is
 * written by hand per route, so the document cannot drift from what the handlers validate:
 * requests are described by the input side of their zod schemas (what a client sends, before
 * transforms and defaults), responses by the output side (what the handler returns).
 *
 * Schema conversion is ./schemas.ts.
 */

export interface OpenApiInfo {
  /** The API version in `info.version`: package.json for the committed files, the deployed version when served. */
  version: string;
  title?: string;
  description?: string;
}

const TITLES: Record<GatewayName, string> = {
  public: 'Wallet and Auth API',
  ledger: 'Ledger API',
  console: 'Console API',
};

/** The spec names the addresses only as placeholders; each deployment substitutes its own. */
const SERVER_VARIABLES: Record<GatewayName, string> = { public: 'base_url', ledger: 'ledger_url', console: 'base_url' };

const CONVENTIONS =
  'Amounts are integer minor units, never floats. Ids are UUIDv7. Every error is an RFC 7807 ' +
  '`application/problem+json` body whose stable `code` (see each response) is what clients branch on, ' +
  'never `title` or `detail`.';

const DESCRIPTIONS: Record<GatewayName, string> = {
  public: `The wallet and auth APIs, public behind the API gateway. ${CONVENTIONS}`,
  ledger:
    'The standalone double-entry ledger. Cluster-internal only: `{ledger_url}` is the internal address of the ' +
    `deployment, and there is no public host. ${CONVENTIONS}`,
  console: `The operators' console API, never reachable through the public gateway. ${CONVENTIONS}`,
};

const BEARER: Record<GatewayName, JsonObject> = {
  public: {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Authorization: Bearer <credential>`, verified on every call. The credential is a tenant API key ' +
      '(`sk_{env}_{key-id}_{secret}`, for backends only), a wallet user token (RS256 JWT minted with an API key ' +
      "and confined to one user) or an access token of the platform's identity provider.",
  },
  ledger: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An OIDC client-credentials access token (JWT) of a registered ledger consumer, matched by its `sub` ' +
      'claim. API keys and wallet user tokens are refused.',
  },
  console: {
    type: 'http',
    scheme: 'bearer',
    description: 'A staff credential: platform staff, vendor support, partner administrator or tenant staff.',
  },
};

/** OpenAPI's own order of operations within a path item, so documents read the same way everywhere. */
const METHOD_ORDER = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const EXAMPLE_REQUEST_ID = '01920000-0000-7000-8000-000000000000';

/** The problem+json schema's name: the spec names the ledger's `ProblemDetails` (part 7). */
const PROBLEM_SCHEMA: Record<GatewayName, string> = { public: 'Problem', ledger: 'ProblemDetails', console: 'Problem' };

export function buildOpenApi(routes: readonly AnyRoute[], gateway: GatewayName, info: OpenApiInfo): OpenApiDocument {
  const served = routes.filter((route) => gateways[gateway].apis.includes(route.api));
  const schemas = new SchemaCollector();
  const problemName = PROBLEM_SCHEMA[gateway];
  const problemSchema = schemas.convert(problem, 'output', problemName);
  const usedCodes = new Set<ErrorCode>();

  const operations = served.map((route) => ({
    route,
    operation: operationOf(route, schemas, usedCodes, problemName),
  }));
  const components = schemas.finish();
  if (components[problemName]) throw new Error(`"${problemName}" is the name of the problem+json schema; rename the other .meta({ id })`);
  components[problemName] = problemSchema;

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const { route, operation } of sortOperations(operations)) {
    const path = openApiPath(route.path);
    const item = (paths[path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${route.operationId}: ${route.method} ${route.path} is served twice on the ${gateway} gateway`);
    item[method] = operation;
  }

  const variable = SERVER_VARIABLES[gateway];
  const tags = [...new Set(served.flatMap((route) => route.tags))].sort();
  const document: OpenApiDocument = {
    openapi: '3.0.3',
    info: {
      title: info.title ?? TITLES[gateway],
      version: info.version,
      description: info.description ?? DESCRIPTIONS[gateway],
    },
    servers: [
      {
        url: `{${variable}}`,
        description: gateways[gateway].description,
        variables: {
          [variable]: {
            default: `http://localhost:${gateways[gateway].localPort}`,
            description: 'The address of the deployment; the default is the embedded local platform (`npm start`).',
          },
        },
      },
    ],
    security: [{ bearerAuth: [] }],
    ...(tags.length > 0 ? { tags: tags.map((name) => ({ name })) } : {}),
    paths,
    components: {
      securitySchemes: { bearerAuth: BEARER[gateway] },
      schemas: sortKeys(components),
      responses: {
        UnexpectedError: {
          description:
            'Any other failure the platform may answer on any route, as a problem: `internal_error`, `method_not_allowed` ' +
            '(with `Allow`), `payload_too_large`, `headers_too_large`, or a retryable one with `Retry-After`.',
          headers: { ...requestIdHeader(), Allow: { $ref: '#/components/headers/Allow' }, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
          content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `#/components/schemas/${problemName}` } } },
        },
      },
      headers: {
        RequestId: {
          description: 'The id of this request, also in the body of every problem; quote it when reporting an issue.',
          schema: { type: 'string' },
        },
        RetryAfter: {
          description: 'Seconds to wait before retrying (rate limits, a full bulkhead, a transient failure).',
          schema: { type: 'integer', minimum: 0 },
        },
        IdempotentReplayed: {
          description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key, replayed byte for byte.',
          schema: { type: 'string', enum: ['true'] },
        },
        Allow: {
          description: 'On a 405: the methods the path does serve.',
          schema: { type: 'string' },
        },
      },
    },
  };
  if (usedCodes.size > 0) {
    (document.components as JsonObject).examples = Object.fromEntries([...usedCodes].sort().map((code) => [code, problemExample(code)]));
  }
  return document;
}

// ---------------------------------------------------------------------------------------------
// Operations

function operationOf(route: AnyRoute, schemas: SchemaCollector, usedCodes: Set<ErrorCode>, problemName: string): JsonObject {
  const where = (part: string) => `${route.operationId}.${part}`;
  const parameters = [
    ...pathParameters(route, schemas),
    ...objectParameters(route.request.query, 'query', where('query'), schemas),
    ...idempotencyParameter(route),
    ...(route.request.headers ?? []).map((header) => ({ name: header.name, in: 'header', description: header.description, required: header.required, schema: { type: 'string' } })),
  ];

  const operation: JsonObject = {
    operationId: route.operationId,
    summary: route.summary,
    description: operationDescription(route),
    tags: [...route.tags],
  };
  if (route.access === 'public') operation.security = [];
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.request.body) {
    operation.requestBody = {
      required: !acceptsUndefined(route.request.body),
      content: { 'application/json': { schema: schemas.convert(route.request.body, 'input', where('body')) } },
    };
  }

  const responses: JsonObject = {};
  const replayed = route.idempotency ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {};
  const body = route.response.status === 204 ? undefined : schemas.convert(route.response.body, 'output', where('response'));
  for (const { status, description } of [{ status: route.response.status, description: route.response.description }, ...(route.response.also ?? [])]) {
    const success: JsonObject = { description, headers: { ...requestIdHeader(), ...replayed } };
    if (body) success.content = { [route.response.contentType ?? 'application/json']: { schema: body } };
    responses[String(status)] = success;
  }
  for (const [status, codes] of errorsByStatus(route)) {
    if (responses[String(status)]) throw new Error(`${route.operationId}: error status ${status} is also a success status`);
    codes.forEach((code) => usedCodes.add(code));
    responses[String(status)] = problemResponse(codes, problemName, replayed);
  }
  responses.default = { $ref: '#/components/responses/UnexpectedError' };
  operation.responses = responses;

  if (route.access !== 'public') {
    operation['x-principal-kinds'] = [...route.access.principals];
    operation['x-required-scopes'] = [...route.access.scopes];
  }
  return operation;
}

function operationDescription(route: AnyRoute): string {
  const lines: string[] = [];
  if (route.access === 'public') {
    lines.push('Public: no credential is needed.');
  } else {
    lines.push(`Callers: ${route.access.principals.map((kind) => `\`${kind}\``).join(', ')}.`);
    lines.push(
      route.access.scopes.length > 0
        ? `Requires one of the scopes: ${route.access.scopes.map((scope) => `\`${scope}\``).join(', ')}.`
        : 'No scope is required.',
    );
  }
  if (route.idempotency) {
    lines.push(
      route.idempotency.required
        ? 'Requires an `Idempotency-Key` header: a retry with the same key replays the original response.'
        : 'Accepts an `Idempotency-Key` header: a retry with the same key replays the original response.',
    );
  }
  return lines.join('\n\n');
}

function pathParameters(route: AnyRoute, schemas: SchemaCollector): JsonObject[] {
  const declared = objectParameters(route.request.params, 'path', `${route.operationId}.params`, schemas);
  const inTemplate = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1]!);
  for (const parameter of declared) {
    if (!inTemplate.includes(parameter.name as string)) {
      throw new Error(`${route.operationId}: path parameter ${String(parameter.name)} is not in ${route.path}`);
    }
  }
  // Template order, and a plain string for a segment the schema leaves undescribed.
  return inTemplate.map(
    (name) => declared.find((parameter) => parameter.name === name) ?? { name, in: 'path', required: true, schema: { type: 'string' } },
  );
}

/** One parameter per property of a params or query object, described by its input side. */
function objectParameters(schema: z.ZodType | undefined, location: 'path' | 'query', where: string, schemas: SchemaCollector): JsonObject[] {
  if (!schema) return [];
  const object = schemas.convert(schema, 'input', where, { inlineRoot: true });
  if (object.type !== 'object' || !isObject(object.properties)) {
    throw new Error(`${where}: ${location} parameters must be described by an object schema`);
  }
  const required = Array.isArray(object.required) ? (object.required as string[]) : [];
  return Object.entries(object.properties).map(([name, property]) => {
    const { description, deprecated, ...propertySchema } = property as JsonObject;
    const parameter: JsonObject = { name, in: location };
    if (typeof description === 'string') parameter.description = description;
    parameter.required = location === 'path' || required.includes(name);
    if (deprecated === true) parameter.deprecated = true;
    parameter.schema = propertySchema;
    return parameter;
  });
}

function idempotencyParameter(route: AnyRoute): JsonObject[] {
  const rule = route.idempotency;
  if (!rule) return [];
  return [
    {
      name: 'Idempotency-Key',
      in: 'header',
      description:
        'A key unique to this operation, chosen by the client. A retry with the same key and body replays the ' +
        'original response; the same key with a different body is refused.',
      required: rule.required,
      schema: { type: 'string', minLength: rule.minLength, maxLength: rule.maxLength },
    },
  ];
}

/** The codes a route may answer, grouped by status: its own, plus what the middleware answers for it. */
function errorsByStatus(route: AnyRoute): [number, ErrorCode[]][] {
  const codes: ErrorCode[] = [];
  const add = (code: ErrorCode) => {
    if (!codes.includes(code)) codes.push(code);
  };
  // The request parser refuses invalid params, query, body and Idempotency-Key, and any body sent to a POST without one,
  // in the route's catalogue: `invalid` on the ledger.
  const takesInput =
    route.request.params || route.request.query || route.request.body || route.idempotency || !['GET', 'DELETE'].includes(route.method);
  if (takesInput) add(route.api === 'ledger' ? 'invalid' : 'invalid_request');
  if (route.access !== 'public') {
    add('unauthenticated');
    add(route.access.wrongPrincipal ?? 'forbidden');
    if (route.access.scopes.length > 0) add('insufficient_scope');
  }
  route.errors.forEach(add);
  // The wallet's credential hook, on every authenticated route: the token-signing keys cannot be
  // read (KMS), or an access record it must queue first cannot be (shared/wallet/access-records.ts).
  if (route.access !== 'public' && route.api !== 'ledger') add('service_unavailable');
  // The gateway's own: its throttle, where the stage has one (the ledger's has none), and a route
  // at its concurrency limit (shared/http/bulkheads.ts).
  if (gateways[gatewayOf(route.api)].throttle) add('rate_limited');
  add('bulkhead_full');

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

/** Codes answered with a Retry-After header. */
const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'bulkhead_full']);

function problemResponse(codes: readonly ErrorCode[], problemName: string, replayed: JsonObject): JsonObject {
  const retryAfter = codes.some((code) => RETRY_AFTER_CODES.has(code)) ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {};
  return {
    description: codes.map((code) => `\`${code}\`: ${errorCatalogue[code].title}.`).join(' '),
    // A refusal remembered under an Idempotency-Key is replayed like a success.
    headers: { ...requestIdHeader(), ...retryAfter, ...replayed },
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: { $ref: `#/components/schemas/${problemName}` },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
    'x-problem-codes': [...codes],
  };
}

function problemExample(code: ErrorCode): JsonObject {
  const { status, title } = errorCatalogue[code];
  const value: JsonObject = { type: problemType(code), title, status, detail: title, code, request_id: EXAMPLE_REQUEST_ID };
  if (retryableCodes.has(code)) value.retryable = true;
  return { summary: title, value };
}

const requestIdHeader = () => ({ 'X-Request-Id': { $ref: '#/components/headers/RequestId' } });

/** A body schema that accepts `undefined` makes the request body optional (route.ts). */
function acceptsUndefined(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    // An async refinement cannot run synchronously; such a body is not optional anyway.
    return false;
  }
}

/** API Gateway's greedy `{proxy+}` is a plain path parameter to OpenAPI. */
const openApiPath = (path: string) => path.replace(/\{(\w+)\+\}/g, '{$1}');

function sortOperations<T extends { route: AnyRoute }>(operations: T[]): T[] {
  return [...operations].sort(
    (a, b) =>
      compare(openApiPath(a.route.path), openApiPath(b.route.path)) ||
      METHOD_ORDER.indexOf(a.route.method.toLowerCase()) - METHOD_ORDER.indexOf(b.route.method.toLowerCase()),
  );
}

