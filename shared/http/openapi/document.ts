import * as z from '../../kernel/zod';
import { errorCatalogue, PROBLEM_CONTENT_TYPE, problemType, retryableCodes, type ErrorCode } from '../../kernel/errors';
import { gateways, type GatewayName } from '../gateways';
import type { AnyRoute, RouteSchema } from '../route';
import { problem } from '../schemas';
import { problemsByStatus, REASONS, type ProblemAnswer } from '../answers';

import { guideDescription, operationLabel } from './guides';
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
  /**
   * Recorded examples by operationId (docs/openapi/examples/<api>.json, written by
   * `npm run openapi:examples` from the platform's real answers): each becomes the `example` of the
   * operation's request body and of its documented success response.
   */
  examples?: Readonly<Record<string, OperationExample>>;
}

/** One operation's recorded exchange: what was sent (when the operation takes a body) and what came back. */
export interface OperationExample {
  request?: unknown;
  status: number;
  response?: unknown;
}

const TITLES: Record<GatewayName, string> = {
  public: 'Wallet and Auth API',
  ledger: 'Ledger API',
  console: 'Console API',
};

/** The spec names the addresses only as placeholders; each deployment substitutes its own. */
const SERVER_VARIABLES: Record<GatewayName, string> = { public: 'base_url', ledger: 'ledger_url', console: 'base_url' };

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
  const problems = new ProblemResponses(problemName);

  const operations = served.map((route) => ({
    route,
    operation: operationOf(route, schemas, problems),
  }));
  const components = schemas.finish();
  if (components[problemName]) throw new Error(`"${problemName}" is the name of the problem+json schema; rename the other z.meta({ id })`);
  components[problemName] = problemSchema;

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const { route, operation } of sortOperations(operations)) {
    const path = openApiPath(route.path);
    const item = (paths[path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${route.operationId}: ${route.method} ${route.path} is served twice on the ${gateway} gateway`);
    item[method] = operation;
  }

  if (info.examples) addExamples(paths, info.examples);

  const variable = SERVER_VARIABLES[gateway];
  const tags = [...new Set(served.flatMap((route) => route.tags))].sort();
  const document: OpenApiDocument = {
    openapi: '3.0.3',
    info: {
      title: info.title ?? TITLES[gateway],
      version: info.version,
      description: info.description ?? guideDescription(gateway),
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
      responses: problems.finish(),
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
      },
    },
  };
  if (problems.codes.size > 0) {
    (document.components as JsonObject).examples = Object.fromEntries([...problems.codes].sort().map((code) => [code, problemExample(code)]));
  }
  return document;
}

// ---------------------------------------------------------------------------------------------
// Operations

/**
 * Puts each recorded example on its operation. An example whose operation, body or status the
 * document no longer has is refused by name: the examples are stale, re-record them.
 */
function addExamples(paths: Record<string, Record<string, JsonObject>>, examples: Readonly<Record<string, OperationExample>>): void {
  const byId = new Map(Object.values(paths).flatMap((item) => Object.values(item)).map((operation) => [operation.operationId as string, operation]));
  const stale = 'Run `npm run openapi:examples` to record them again.';
  for (const [operationId, example] of Object.entries(examples)) {
    const operation = byId.get(operationId);
    if (!operation) throw new Error(`The recorded example of ${operationId} names no operation of this document. ${stale}`);
    if (example.request !== undefined) {
      const content = (operation.requestBody as JsonObject | undefined)?.content as Record<string, JsonObject> | undefined;
      if (!content?.['application/json']) throw new Error(`The recorded example of ${operationId} has a request body the operation does not take. ${stale}`);
      content['application/json'].example = example.request;
    }
    const response = (operation.responses as Record<string, JsonObject>)[String(example.status)];
    if (!response || '$ref' in response) throw new Error(`The recorded example of ${operationId} answered ${example.status}, not a documented success status. ${stale}`);
    if (example.response !== undefined) {
      const content = response.content as Record<string, JsonObject> | undefined;
      const media = content && Object.keys(content)[0];
      if (!content || !media) throw new Error(`The recorded example of ${operationId} has a response body; the operation documents none at ${example.status}. ${stale}`);
      content[media]!.example = example.response;
    }
  }
}

function operationOf(route: AnyRoute, schemas: SchemaCollector, problems: ProblemResponses): JsonObject {
  const where = (part: string) => `${route.operationId}.${part}`;
  const parameters = [
    ...pathParameters(route, schemas),
    ...objectParameters(route.request.query, 'query', where('query'), schemas),
    ...idempotencyParameter(route),
    ...(route.request.headers ?? []).map((header) => ({ name: header.name, in: 'header', description: header.description, required: header.required, schema: { type: 'string' } })),
  ];

  const operation: JsonObject = {
    operationId: route.operationId,
    summary: operationLabel(route.summary),
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

  // Exactly the statuses the route can answer (../answers.ts), each error status with its codes,
  // and no `default`: a status that is not listed is one the platform never answers here.
  const responses: JsonObject = {};
  const replayed = route.idempotency ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {};
  const body = route.response.status === 204 ? undefined : schemas.convert(route.response.body, 'output', where('response'));
  for (const { status, description } of [{ status: route.response.status, description: route.response.description }, ...(route.response.also ?? [])]) {
    const success: JsonObject = { description, headers: { ...requestIdHeader(), ...replayed } };
    if (body) success.content = { [route.response.contentType ?? 'application/json']: { schema: body } };
    responses[String(status)] = success;
  }
  for (const [status, answers] of problemsByStatus(route)) {
    if (responses[String(status)]) throw new Error(`${route.operationId}: error status ${status} is also a success status`);
    // Only what the route's function answers can be remembered under an Idempotency-Key and replayed.
    const replayable = route.idempotency !== undefined && answers.some((answer) => answer.reasons.includes('route'));
    responses[String(status)] = problems.ref(status, answers, replayable);
  }
  operation.responses = responses;

  if (route.access !== 'public') {
    operation['x-principal-kinds'] = [...route.access.principals];
    operation['x-required-scopes'] = [...route.access.scopes];
  }
  return operation;
}

function operationDescription(route: AnyRoute): string {
  const lines: string[] = [];
  // The summary is its first clause (a sidebar label): the whole sentence opens the description.
  if (operationLabel(route.summary) !== route.summary) lines.push(`${route.summary}.`);
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
  if (route.description) lines.push(route.description);
  if (route.idempotency) {
    lines.push(
      route.idempotency.required
        ? 'Requires an `Idempotency-Key` header: a retry with the same key replays the original response (see Idempotency).'
        : 'Accepts an `Idempotency-Key` header (optional): with one, a retry with the same key replays the original response (see Idempotency).',
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
function objectParameters(schema: RouteSchema | undefined, location: 'path' | 'query', where: string, schemas: SchemaCollector): JsonObject[] {
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

/**
 * The error responses, in `components.responses`: one per distinct answer (status, codes, reasons,
 * headers), shared by every operation that gives it, and named by its status and codes
 * (`Problem404_not_found_user_not_found`; `_2`... when two differ only in their reasons, numbered in
 * the order of their text so the names do not depend on the order of the routes).
 */
class ProblemResponses {
  private readonly byContent = new Map<string, { base: string; response: JsonObject; refs: { $ref: string }[] }>();
  /** Every code some response carries: each gets an example. */
  readonly codes = new Set<ErrorCode>();

  constructor(private readonly problemName: string) {}

  /** A reference to the response for these problems; it points at its final name once `finish` ran. */
  ref(status: number, problems: readonly ProblemAnswer[], replayable: boolean): { $ref: string } {
    const response = problemResponse(status, problems, this.problemName, replayable);
    const key = JSON.stringify(response);
    problems.forEach((problem) => this.codes.add(problem.code));
    let entry = this.byContent.get(key);
    if (!entry) {
      entry = { base: `Problem${status}_${problems.map((problem) => problem.code).join('_')}`, response, refs: [] };
      this.byContent.set(key, entry);
    }
    const ref = { $ref: '' };
    entry.refs.push(ref);
    return ref;
  }

  finish(): Record<string, JsonObject> {
    const byBase = new Map<string, [string, NonNullable<ReturnType<typeof this.byContent.get>>][]>();
    for (const [key, entry] of this.byContent) byBase.set(entry.base, [...(byBase.get(entry.base) ?? []), [key, entry]]);
    const named: Record<string, JsonObject> = {};
    for (const [base, entries] of byBase) {
      entries.sort(([a], [b]) => compare(a, b));
      entries.forEach(([, entry], index) => {
        const name = index === 0 ? base : `${base}_${index + 1}`;
        named[name] = entry.response;
        for (const ref of entry.refs) ref.$ref = `#/components/responses/${name}`;
      });
    }
    return sortKeys(named);
  }
}

/** Codes answered with a Retry-After header. */
const RETRY_AFTER_CODES: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'bulkhead_full']);

/**
 * One error status of an operation: its problem codes, each with its title and, where the platform
 * answers it, why; the problem schema narrowed to those codes (and that status), so a validator
 * refuses a code the operation does not answer there.
 */
function problemResponse(status: number, problems: readonly ProblemAnswer[], problemName: string, replayable: boolean): JsonObject {
  const codes = problems.map((problem) => problem.code);
  const retryAfter = codes.some((code) => RETRY_AFTER_CODES.has(code)) ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {};
  // A refusal remembered under an Idempotency-Key is replayed like a success.
  const replayed = replayable ? { 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } } : {};
  return {
    description: problems.map(problemLine).join(' '),
    headers: { ...requestIdHeader(), ...retryAfter, ...replayed },
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: {
          allOf: [
            { $ref: `#/components/schemas/${problemName}` },
            { type: 'object', properties: { status: { type: 'integer', enum: [status] }, code: { type: 'string', enum: codes } } },
          ],
        },
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
    'x-problem-codes': codes,
  };
}

function problemLine(problem: ProblemAnswer): string {
  const why = problem.reasons.filter((reason) => reason !== 'route').map((reason) => REASONS[reason]);
  return `\`${problem.code}\`: ${errorCatalogue[problem.code].title}${why.length > 0 ? ` (${why.join('; ')})` : ''}.`;
}

function problemExample(code: ErrorCode): JsonObject {
  const { status, title } = errorCatalogue[code];
  const value: JsonObject = { type: problemType(code), title, status, detail: title, code, request_id: EXAMPLE_REQUEST_ID };
  if (retryableCodes.has(code)) value.retryable = true;
  return { summary: title, value };
}

const requestIdHeader = () => ({ 'X-Request-Id': { $ref: '#/components/headers/RequestId' } });

/** A body schema that accepts `undefined` makes the request body optional (route.ts). */
function acceptsUndefined(schema: RouteSchema): boolean {
  try {
    return z.safeParse(schema, undefined).success;
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

