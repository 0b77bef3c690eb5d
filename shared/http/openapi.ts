import { z } from 'zod';
import { errorCatalogue, PROBLEM_CONTENT_TYPE, problemType, retryableCodes, type ErrorCode } from '../kernel/errors';
import { gateways, type GatewayName } from './gateways';
import type { AnyRoute } from './route';
import { problem } from './schemas';

/**
 * The OpenAPI 3.0.3 description of one gateway, generated from the route manifest: the third
 * consumer of shared/routes.ts (DESIGN.md "One manifest, three consumers"). Nothing here is
 * written by hand per route, so the document cannot drift from what the handlers validate:
 * requests are described by the input side of their zod schemas (what a client sends, before
 * transforms and defaults), responses by the output side (what the handler returns).
 *
 * zod's `openapi-3.0` target does most of the translation; `toOpenApi30` then removes or rewrites
 * whatever JSON Schema keyword OpenAPI 3.0 still forbids, so a schema written for validation never
 * makes the document invalid. Schemas named with `.meta({ id: 'Account' })` become
 * `components.schemas` entries shared by every operation that uses them.
 */

export type JsonObject = { [key: string]: unknown };
export type OpenApiDocument = JsonObject & { openapi: '3.0.3'; paths: Record<string, Record<string, JsonObject>> };

export interface OpenApiInfo {
  /** The API version in `info.version`: package.json for the committed files, the deployed version when served. */
  version: string;
  title?: string;
  description?: string;
}

type Io = 'input' | 'output';

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

export function buildOpenApi(routes: readonly AnyRoute[], gateway: GatewayName, info: OpenApiInfo): OpenApiDocument {
  const served = routes.filter((route) => gateways[gateway].apis.includes(route.api));
  const schemas = new SchemaCollector();
  const problemSchema = schemas.convert(problem, 'output', 'Problem');
  const usedCodes = new Set<ErrorCode>();

  const operations = served.map((route) => ({
    route,
    operation: operationOf(route, schemas, usedCodes),
  }));
  const components = schemas.finish();
  if (components.Problem) throw new Error('"Problem" is the name of the problem+json schema; rename the other .meta({ id })');
  components.Problem = problemSchema;

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
          description: 'Any other failure the platform may answer on any route, such as `internal_error`, as a problem.',
          headers: requestIdHeader(),
          content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
      headers: {
        RequestId: {
          description: 'The id of this request, also in the body of every problem; quote it when reporting an issue.',
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

function operationOf(route: AnyRoute, schemas: SchemaCollector, usedCodes: Set<ErrorCode>): JsonObject {
  const where = (part: string) => `${route.operationId}.${part}`;
  const parameters = [
    ...pathParameters(route, schemas),
    ...objectParameters(route.request.query, 'query', where('query'), schemas),
    ...idempotencyParameter(route),
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
  const success: JsonObject = { description: route.response.description, headers: requestIdHeader() };
  if (route.response.status !== 204) {
    success.content = { 'application/json': { schema: schemas.convert(route.response.body, 'output', where('response')) } };
  }
  responses[String(route.response.status)] = success;
  for (const [status, codes] of errorsByStatus(route)) {
    if (responses[String(status)]) throw new Error(`${route.operationId}: error status ${status} is also the success status`);
    codes.forEach((code) => usedCodes.add(code));
    responses[String(status)] = problemResponse(codes);
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
  // The request parser refuses invalid params, query, body and Idempotency-Key, and any body sent to a POST without one.
  const takesInput =
    route.request.params || route.request.query || route.request.body || route.idempotency || !['GET', 'DELETE'].includes(route.method);
  if (takesInput) add('invalid_request');
  if (route.access !== 'public') {
    add('unauthenticated');
    add(route.access.wrongPrincipal ?? 'forbidden');
    if (route.access.scopes.length > 0) add('insufficient_scope');
  }
  route.errors.forEach(add);

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()].sort(([a], [b]) => a - b);
}

function problemResponse(codes: readonly ErrorCode[]): JsonObject {
  return {
    description: codes.map((code) => `\`${code}\`: ${errorCatalogue[code].title}.`).join(' '),
    headers: requestIdHeader(),
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: { $ref: '#/components/schemas/Problem' },
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

// ---------------------------------------------------------------------------------------------
// Schemas

/**
 * Converts zod schemas and gathers the named ones into `components.schemas`. A named schema can
 * read differently as input and as output (defaults, transforms, unknown keys stripped): then the
 * output keeps the name and the input variant is `<name>Input`. Names are settled only once every
 * schema is converted, so the result does not depend on the order of the routes.
 */
class SchemaCollector {
  private readonly converted: { io: Io; nodes: JsonObject[] }[] = [];
  private readonly named = new Map<string, Record<Io, Map<string, JsonObject>>>();

  convert(schema: z.ZodType, io: Io, where: string, options: { inlineRoot?: boolean } = {}): JsonObject {
    const raw = z.toJSONSchema(schema, {
      target: 'openapi-3.0',
      io,
      unrepresentable: (site) => unrepresentable(site, where),
      override: ({ zodSchema, jsonSchema }) => {
        if (io !== 'output') return;
        // zod closes every output object because it strips unknown keys; a client reading a
        // response must instead tolerate fields added later. Only a strict object stays closed.
        const def = zodSchema._zod.def;
        if (def.type === 'object' && !def.catchall && jsonSchema.additionalProperties === false) {
          delete jsonSchema.additionalProperties;
        }
        // What the server writes, `format` says well enough; the regex zod checks a uuid or a
        // timestamp with is the contract for requests only, and would bury every response in noise.
        if (typeof jsonSchema.format === 'string' && FORMATS_WITH_PATTERNS.has(jsonSchema.format)) delete jsonSchema.pattern;
        // Likewise the safe-integer bounds zod puts on every `.int()`: a server never writes past them.
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      },
    }) as JsonObject;
    const { definitions, ...rootRaw } = raw;
    const defs = new Map<string, JsonObject>();
    const renames = new Map<string, string>();
    for (const [id, def] of Object.entries((definitions as Record<string, JsonObject> | undefined) ?? {})) {
      // zod names an unnamed recursive schema `__schema0`; make it unique to this conversion.
      const name = id.startsWith('__schema') ? `${where.replace(/\W/g, '_')}_${id.slice('__schema'.length)}` : id;
      if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`${where}: schema id "${id}" is not a valid component name`);
      renames.set(id, name);
      defs.set(name, toOpenApi30(def));
    }
    const localRefs = (node: JsonObject) =>
      rewriteRefs(node, (ref) => {
        const id = ref.slice('#/definitions/'.length);
        return `#/definitions/${renames.get(id) ?? id}`;
      });

    let root = toOpenApi30(rootRaw);
    if (options.inlineRoot && typeof root.$ref === 'string' && Object.keys(root).length === 1) {
      root = structuredClone(defs.get(renames.get(root.$ref.slice('#/definitions/'.length)) ?? '') ?? root);
    }
    const nodes = [root, ...defs.values()];
    nodes.forEach(localRefs);
    for (const [name, def] of defs) {
      const variants = this.named.get(name) ?? { input: new Map(), output: new Map() };
      variants[io].set(JSON.stringify(def), def);
      this.named.set(name, variants);
    }
    this.converted.push({ io, nodes });
    return root;
  }

  /** Settles the component names, points every `$ref` at them, and returns `components.schemas`. */
  finish(): Record<string, JsonObject> {
    for (const [name, variants] of this.named) {
      for (const io of ['input', 'output'] as const) {
        if (variants[io].size > 1) {
          throw new Error(`Two different schemas are named "${name}" (${io}); give each its own .meta({ id })`);
        }
      }
    }
    // A named schema splits when its two sides differ, or when it refers to one that splits.
    const split = new Set<string>();
    for (let grew = true; grew; ) {
      grew = false;
      for (const [name, variants] of this.named) {
        if (split.has(name)) continue;
        const [input] = variants.input.keys();
        const [output] = variants.output.keys();
        if (input === undefined || output === undefined) continue;
        if (input !== output || refsIn(input).some((ref) => split.has(ref))) {
          split.add(name);
          grew = true;
        }
      }
    }
    const nameOf = (name: string, io: Io) => (io === 'input' && split.has(name) ? `${name}Input` : name);

    const components: Record<string, JsonObject> = {};
    for (const [name, variants] of this.named) {
      for (const io of ['input', 'output'] as const) {
        const [schema] = variants[io].values();
        if (!schema) continue;
        const componentName = nameOf(name, io);
        const existing = components[componentName];
        if (existing && existing !== schema && JSON.stringify(existing) !== JSON.stringify(schema)) {
          throw new Error(`Component schema name "${componentName}" is used twice; rename one .meta({ id })`);
        }
        components[componentName] = schema;
      }
    }
    for (const { io, nodes } of this.converted) {
      for (const node of nodes) rewriteRefs(node, (ref) => `#/components/schemas/${nameOf(ref.slice('#/definitions/'.length), io)}`);
    }
    return components;
  }
}

const refsIn = (json: string) => [...json.matchAll(/"#\/definitions\/([^"]+)"/g)].map((match) => match[1]!);

const FORMATS_WITH_PATTERNS = new Set(['uuid', 'guid', 'date-time', 'date', 'time', 'duration', 'email', 'ipv4', 'ipv6', 'cidrv4', 'cidrv6']);

function unrepresentable(
  site: { zodSchema: z.core.$ZodType; path: (string | number)[]; message: string },
  where: string,
): z.core.JSONSchema.BaseSchema {
  const type = site.zodSchema._zod.def.type;
  // `undefined` is how an optional union member or body says "absent"; toOpenApi30 prunes the branch.
  if (type === 'undefined' || type === 'void') return { not: {} };
  // A Date leaves a handler as JSON.stringify writes it.
  if (type === 'date') return { type: 'string', format: 'date-time' };
  const at = site.path.length > 0 ? ` at ${site.path.join('.')}` : '';
  throw new Error(`${where}: ${site.message}${at}; describe it with a representable schema`);
}

function rewriteRefs(node: unknown, rewrite: (ref: string) => string): void {
  if (Array.isArray(node)) {
    node.forEach((item) => rewriteRefs(item, rewrite));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) node.$ref = rewrite(value);
    else rewriteRefs(value, rewrite);
  }
}

/** Schema Object keywords OpenAPI 3.0.3 allows; anything else, except `x-` extensions, is dropped. */
const OPENAPI_30_KEYWORDS = new Set([
  '$ref',
  'title',
  'description',
  'type',
  'format',
  'nullable',
  'enum',
  'default',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'discriminator',
  'xml',
  'externalDocs',
]);

const isNothing = (schema: unknown) => isObject(schema) && Object.keys(schema).length === 1 && isObject(schema.not) && Object.keys(schema.not).length === 0;

/**
 * Rewrites one JSON Schema (and its subschemas) into an OpenAPI 3.0 Schema Object: `const` to
 * `enum`, type arrays and `null` to `nullable`, numeric exclusive bounds to the boolean form,
 * tuples to `items`, `examples` to `example`; drops keywords 3.0 does not have (`$schema`,
 * `propertyNames`, `contentEncoding`, `if`...). zod's `openapi-3.0` target already does most of
 * this; the rest is here so a schema written for validation never invalidates the document.
 */
export function toOpenApi30(input: JsonObject): JsonObject {
  if (typeof input.$ref === 'string') {
    const { $ref, ...rest } = input;
    const siblings = Object.keys(rest).filter((key) => OPENAPI_30_KEYWORDS.has(key) || key.startsWith('x-'));
    // 3.0 ignores the siblings of a $ref; wrapping keeps them (nullable, description) meaningful.
    return siblings.length === 0 ? { $ref } : toOpenApi30({ ...rest, allOf: [{ $ref }, ...((rest.allOf as JsonObject[]) ?? [])] });
  }
  const schema: JsonObject = { ...input };

  if ('const' in schema) {
    schema.enum = [schema.const];
    delete schema.const;
  }

  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.includes('null')) {
    schema.nullable = true;
    const others = types.filter((type) => type !== 'null');
    if (others.length === 0) {
      delete schema.type;
      schema.enum = [null];
    } else if (others.length === 1) {
      schema.type = others[0];
    } else {
      delete schema.type;
      schema.anyOf = others.map((type) => ({ type }));
    }
  } else if (types.length > 1) {
    delete schema.type;
    schema.anyOf = types.map((type) => ({ type }));
  }

  for (const [exclusive, inclusive] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const bound = schema[exclusive];
    if (typeof bound !== 'number') continue;
    const current = schema[inclusive];
    const stricter =
      typeof current !== 'number' || (inclusive === 'minimum' ? bound >= current : bound <= current);
    if (stricter) {
      schema[inclusive] = bound;
      schema[exclusive] = true;
    } else {
      delete schema[exclusive];
    }
  }

  if (Array.isArray(schema.examples)) {
    if (!('example' in schema) && schema.examples.length > 0) schema.example = schema.examples[0];
    delete schema.examples;
  }

  // Tuples: 3.0 has one `items` schema; describe each position as one of the listed ones.
  const positional = [
    ...(Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonObject[]) : []),
    ...(Array.isArray(schema.items) ? (schema.items as JsonObject[]) : []),
  ];
  if (positional.length > 0) {
    const rest = isObject(schema.items) && !Array.isArray(schema.items) ? [schema.items] : [];
    const all = [...positional, ...rest];
    schema.items = all.length === 1 ? all[0] : { anyOf: all };
    if (schema.type === undefined) schema.type = 'array';
  }

  if (isObject(schema.patternProperties)) {
    const values = Object.values(schema.patternProperties) as JsonObject[];
    if (schema.additionalProperties === undefined && values.length > 0) {
      schema.additionalProperties = values.length === 1 ? values[0] : { anyOf: values };
    }
  }

  // Subschemas.
  if (isObject(schema.properties)) {
    schema.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, property]) => [name, toOpenApi30(property as JsonObject)]),
    );
  }
  if (isObject(schema.additionalProperties)) schema.additionalProperties = toOpenApi30(schema.additionalProperties);
  if (isObject(schema.items)) schema.items = toOpenApi30(schema.items);
  if (isObject(schema.not)) schema.not = toOpenApi30(schema.not);
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (!Array.isArray(schema[combinator])) continue;
    const branches = (schema[combinator] as JsonObject[]).map(toOpenApi30);
    // A branch that matches nothing (an `undefined` member) adds nothing to a union.
    const kept = combinator === 'allOf' ? branches : branches.filter((branch) => !isNothing(branch));
    if (kept.length === 0) {
      delete schema[combinator];
      schema.not = {};
    } else {
      schema[combinator] = kept;
    }
  }

  if (Array.isArray(schema.enum) && schema.enum.includes(null)) schema.nullable = true;
  if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  if (schema.nullable === false) delete schema.nullable;

  for (const key of Object.keys(schema)) {
    if (!OPENAPI_30_KEYWORDS.has(key) && !key.startsWith('x-')) delete schema[key];
  }

  // A union left with one branch is that branch.
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const branches = schema[combinator];
    if (Array.isArray(branches) && branches.length === 1 && Object.keys(schema).length === 1) return branches[0] as JsonObject;
  }
  return schema;
}

// ---------------------------------------------------------------------------------------------

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
