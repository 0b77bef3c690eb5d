import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from '../../shared/kernel/zod';
import { checkOpenApiFiles, OPENAPI_DIR, OPENAPI_FILES, renderOpenApiFiles } from '../../scripts/openapi';
import { answersOf } from '../../shared/http/answers';
import { documentFaults } from '../../shared/http/openapi/audit';
import { gatewayOf, type GatewayName } from '../../shared/http/gateways';
import { buildOpenApi } from '../../shared/http/openapi/document';
import { MAX_SUMMARY_LENGTH } from '../../shared/http/openapi/guides';
import { toOpenApi30, type JsonObject, type OpenApiDocument } from '../../shared/http/openapi/schemas';
import { defineRoute, idempotencyRequired, type AnyRoute } from '../../shared/http/route';
import { CURRENCY_PATTERN, cursor, exactlyOneOf, metadata, oneOrMoreOf, pageLimit, positiveAmount, someField, timestamp, uuid } from '../../shared/http/schemas';
import { routes } from '../../shared/routes';

const GATEWAYS: GatewayName[] = ['public', 'ledger', 'console'];
const info = { version: '9.9.9' };

// A route that exists only in this test, with every kind of input the generator must describe.
const thingBody = z.strictObject({
  name: z.string().check(z.minLength(1), z.maxLength(100)),
  tier: z.enum(['bronze', 'silver', 'gold']),
  legs: z
    .array(z.strictObject({ account_id: uuid, direction: z.enum(['debit', 'credit']), amount: positiveAmount }))
    .check(z.minLength(2), z.maxLength(32)),
  limits: z.record(z.string(), z.object({ max: z.int().check(z.minimum(0)), window: z.enum(['day', 'month']) })),
  note: z.nullable(z.string().check(z.maxLength(200))),
  metadata: z.optional(metadata),
  effective_at: z.optional(timestamp),
  nested: z.object({ deep: z.object({ flags: z.array(z.boolean()), ratio: z.number().check(z.gt(0), z.lt(1)) }) }),
});

const syntheticRoute = defineRoute({
  operationId: 'testCreateThing',
  method: 'POST',
  path: '/v1/ledgers/{ledgerId}/things/{thingId}',
  api: 'ledger',
  handler: 'test/create-thing',
  summary: 'Create a thing',
  tags: ['test'],
  access: { principals: ['ledger_consumer'], scopes: ['things:write'], wrongPrincipal: 'consumer_token_required' },
  request: {
    params: z.object({ ledgerId: uuid, thingId: uuid }),
    query: z.object({
      limit: pageLimit(),
      cursor,
      status: z.optional(z.enum(['open', 'closed'])).check(z.describe('Only things in this status')),
      since: timestamp,
    }),
    body: thingBody,
  },
  response: {
    status: 201,
    body: z.object({ id: uuid, created_at: timestamp, next: z.nullable(z.string()) }),
    description: 'The thing, created.',
  },
  errors: ['ledger_not_found', 'insufficient_funds', 'unbalanced', 'idempotency_key_reuse'],
  idempotency: idempotencyRequired(),
  tables: {},
});

const optionalBodyRoute = defineRoute({
  ...syntheticRoute,
  operationId: 'testReverseThing',
  path: '/v1/ledgers/{ledgerId}/things/{thingId}/reversals',
  request: {
    params: z.object({ ledgerId: uuid, thingId: uuid }),
    body: z.optional(z.strictObject({ reason: z.string().check(z.maxLength(200)) })),
  },
  idempotency: { required: false, minLength: 8, maxLength: 64, keptBy: 'answer' },
});

const THING = '/v1/ledgers/{ledgerId}/things/{thingId}';

async function validate(document: OpenApiDocument): Promise<void> {
  // The parser dereferences in place: validate a copy so the assertions read the document as built.
  await SwaggerParser.validate(structuredClone(document) as never);
}

const documents = () => Object.fromEntries(GATEWAYS.map((gateway) => [gateway, buildOpenApi(routes, gateway, info)]));

/** An operation's response at a status, its `$ref` into components.responses followed. */
function responseOf(document: any, operation: any, status: string): any {
  const response = operation.responses[status];
  const ref = /^#\/components\/responses\/(.+)$/.exec(response?.$ref ?? '')?.[1];
  return ref ? document.components.responses[ref] : response;
}

function operations(document: OpenApiDocument): JsonObject[] {
  return Object.values(document.paths).flatMap((item) => Object.values(item));
}

/** Keywords that are JSON Schema but not OpenAPI 3.0, wherever they hide in a document. */
function forbiddenKeywords(node: unknown, at = '#'): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => forbiddenKeywords(item, `${at}/${index}`));
  if (typeof node !== 'object' || node === null) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (['$schema', '$defs', 'definitions', 'const', 'propertyNames', 'prefixItems', 'patternProperties', 'contentEncoding'].includes(key)) {
      found.push(`${at}/${key}`);
    }
    if (key === 'type' && Array.isArray(value)) found.push(`${at}/type (array)`);
    if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'number') found.push(`${at}/${key} (number)`);
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#/components/')) found.push(`${at}/$ref ${value}`);
    // `examples` is legal on media types and components, never inside a schema.
    if (key === 'schema' || key === 'properties' || key === 'items') {
      const schemas = key === 'properties' ? Object.values(value as object) : [value];
      for (const schema of schemas) if (schema && typeof schema === 'object' && 'examples' in schema) found.push(`${at}/${key}/examples`);
    }
    found.push(...forbiddenKeywords(value, `${at}/${key}`));
  }
  return found;
}

describe('the generated OpenAPI documents', () => {
  it.each(GATEWAYS)('validates the %s document as OpenAPI 3.0.3', async (gateway) => {
    const document = buildOpenApi(routes, gateway, info);

    await validate(document);

    expect(document.openapi).toBe('3.0.3');
  });

  it('contains no JSON Schema keyword that OpenAPI 3.0 forbids', () => {
    const all = { ...documents(), synthetic: buildOpenApi([...routes, syntheticRoute, optionalBodyRoute], 'ledger', info) };

    expect(forbiddenKeywords(all)).toEqual([]);
  });

  it('puts every manifest route on its own gateway document, by operationId, and on no other', () => {
    const built = documents();

    for (const gateway of GATEWAYS) {
      const ids = operations(built[gateway]!).map((operation) => operation.operationId).sort();
      const expected = routes.filter((route) => gatewayOf(route.api) === gateway).map((route) => route.operationId).sort();
      expect(ids, gateway).toEqual(expected);
    }
  });

  it('keeps every ledger route off the wallet document', () => {
    const walletIds = new Set(operations(buildOpenApi(routes, 'public', info)).map((operation) => operation.operationId));

    const leaked = routes.filter((route) => route.api === 'ledger' && walletIds.has(route.operationId));

    expect(leaked.map((route) => route.operationId)).toEqual([]);
    expect(walletIds.has('ledgerHealthz')).toBe(false);
    expect(walletIds.has('walletHealthz')).toBe(true);
  });

  it('names each gateway and points its server at a placeholder with a local default', () => {
    const built = documents();

    expect(built.public!.info).toMatchObject({ title: 'Wallet and Auth API', version: '9.9.9' });
    expect(built.ledger!.info).toMatchObject({ title: 'Ledger API' });
    expect(built.console!.info).toMatchObject({ title: 'Console API' });
    expect(built.public!.servers).toMatchObject([{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:3000' } } }]);
    expect(built.ledger!.servers).toMatchObject([{ url: '{ledger_url}', variables: { ledger_url: { default: 'http://localhost:8095' } } }]);
    expect(built.console!.servers).toMatchObject([{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:3001' } } }]);
  });

  it('teaches before it lists: guide sections in each description, short summaries, limit as 1..max with its default and clamping', () => {
    const built = documents();
    const headings = (gateway: string) => [...String((built[gateway]!.info as JsonObject).description).matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings('public')).toEqual(['Authentication and scopes', 'Errors and codes', 'Pagination', 'Idempotency', 'Webhooks and signatures', 'Sandbox and live keys']);
    expect(headings('ledger')).toEqual(['Authentication', 'Errors and codes', 'Pagination', 'The event feed', 'Idempotency']);
    expect(headings('console')).toEqual(['Authentication and scopes', 'Errors and codes', 'Pagination', 'Idempotency']);
    for (const document of Object.values(built)) {
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, JsonObject>>)) {
        for (const [method, operation] of Object.entries(item)) {
          const summary = String(operation.summary);
          expect(summary.length, `${method} ${path}: ${summary}`).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
          expect(summary, `${method} ${path}`).not.toMatch(/[.:;,]$/);
          const limit = ((operation.parameters ?? []) as JsonObject[]).find((parameter) => parameter.name === 'limit' && parameter.in === 'query');
          if (!limit) continue;
          expect(limit.schema, `${method} ${path}`).toMatchObject({ type: 'integer', minimum: 1, default: expect.any(Number) });
          const maximum = (limit.schema as JsonObject).maximum as number;
          expect(String(limit.description), `${method} ${path}`).toMatch(new RegExp(`^How many items a page holds: an integer from 1 to ${maximum}, \\d+ when absent\\. A value outside is clamped`));
        }
      }
    }
  });

  it('makes bearer authentication global and lifts it on public routes', () => {
    const ledger = buildOpenApi([...routes, syntheticRoute], 'ledger', info);

    expect(ledger.security).toEqual([{ bearerAuth: [] }]);
    expect(ledger.components).toMatchObject({ securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } });
    expect(ledger.paths['/healthz']!.get!.security).toEqual([]);
    expect(ledger.paths[THING]!.post!.security).toBeUndefined();
  });

  it('matches the committed docs/openapi files, so a route change without regenerating fails', () => {
    const expected = renderOpenApiFiles();

    expect(Object.keys(expected).sort()).toEqual(Object.keys(OPENAPI_FILES).sort());
    for (const [file, text] of Object.entries(expected)) {
      const committed = readFileSync(join(OPENAPI_DIR, file), 'utf8');
      expect(committed, `docs/openapi/${file} is stale: run npm run openapi`).toBe(text);
    }
  });

  it.each([
    ['wallet', 'public', 'Wallet and Auth API'],
    ['ledger', 'ledger', 'Ledger API'],
    ['console', 'console', 'Console API'],
  ] as const)('serves the committed %s document from GET /openapi.json, with the deployed version', async (api, gateway, title) => {
    const { handler } = (await import(`../../functions/platform/openapi-${api}.ts`)) as { handler: (event: APIGatewayProxyEvent, context: Context) => Promise<{ statusCode: number; body: string }> };
    const event = {
      httpMethod: 'GET',
      path: '/openapi.json',
      headers: {},
      body: null,
      isBase64Encoded: false,
      pathParameters: null,
      queryStringParameters: null,
      requestContext: { requestId: 'req-1' },
    } as unknown as APIGatewayProxyEvent;

    const response = await handler(event, {} as Context);

    expect(response.statusCode).toBe(200);
    const served = JSON.parse(response.body) as OpenApiDocument & { info: { title: string; version: string } };
    expect(served.info.title).toBe(title);
    expect(served.info.version).toBe(process.env.PLATFORM_VERSION ?? '0.1.0');
    expect(Object.keys(served.paths)).toEqual(Object.keys(buildOpenApi(routes, gateway, info).paths));
  });
});

describe('an operation generated from a route', () => {
  let document: OpenApiDocument;
  let operation: any;
  beforeAll(() => {
    document = buildOpenApi([...routes, syntheticRoute, optionalBodyRoute], 'ledger', info);
    operation = document.paths[THING]!.post;
  });

  it('validates with a synthetic route that uses every kind of input', async () => {
    await validate(document);
  });

  it('stays off the other gateways', () => {
    const wallet = buildOpenApi([...routes, syntheticRoute], 'public', info);

    expect(wallet.paths[THING]).toBeUndefined();
  });

  it('lists path, query and Idempotency-Key parameters with what the manifest requires', () => {
    const listed = operation.parameters.map((p: any) => `${p.in} ${p.name} ${p.required}`);

    expect(listed).toEqual([
      'path ledgerId true',
      'path thingId true',
      'query limit false',
      'query cursor false',
      'query status false',
      'query since true',
      'header Idempotency-Key true',
    ]);
  });

  it('describes parameters by their input side, with formats', () => {
    const byName = Object.fromEntries(operation.parameters.map((p: any) => [p.name, p]));

    expect(byName.ledgerId.schema).toMatchObject({ type: 'string', format: 'uuid' });
    expect(byName.since.schema).toMatchObject({ type: 'string', format: 'date-time' });
    // An integer, documented as one; out-of-range values are clamped, not refused (spec part 4 item 19).
    expect(byName.limit.schema).toMatchObject({ type: 'integer' });
    expect(byName.status).toMatchObject({ description: 'Only things in this status', schema: { type: 'string', enum: ['open', 'closed'] } });
    expect(byName['Idempotency-Key'].schema).toEqual({ type: 'string', minLength: 1, maxLength: 255 });
  });

  it('describes a required JSON body with nested objects, arrays, records, enums, nullable and optional fields', () => {
    expect(operation.requestBody.required).toBe(true);
    const body = operation.requestBody.content['application/json'].schema;

    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual(['name', 'tier', 'legs', 'limits', 'note', 'nested']);
    expect(body.properties.tier).toEqual({ type: 'string', enum: ['bronze', 'silver', 'gold'] });
    expect(body.properties.legs).toMatchObject({ type: 'array', minItems: 2, maxItems: 32 });
    expect(body.properties.legs.items.properties.account_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(body.properties.legs.items.properties.amount).toMatchObject({ type: 'integer', minimum: 1 });
    expect(body.properties.limits).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'object', properties: { window: { enum: ['day', 'month'] } }, required: ['max', 'window'] },
    });
    expect(body.properties.note).toEqual({ type: 'string', maxLength: 200, nullable: true });
    expect(body.properties.metadata).toMatchObject({ type: 'object', additionalProperties: { type: 'string', maxLength: 500 } });
    expect(body.properties.effective_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(body.properties.nested.properties.deep.properties.ratio).toEqual({
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 1,
      exclusiveMaximum: true,
    });
  });

  it('makes the body optional when its schema accepts undefined', () => {
    const reversal = document.paths[`${THING}/reversals`]!.post as any;

    expect(reversal.requestBody.required).toBe(false);
    expect(reversal.requestBody.content['application/json'].schema).toMatchObject({ type: 'object', properties: { reason: { type: 'string' } } });
    expect(reversal.parameters.at(-1)).toMatchObject({ name: 'Idempotency-Key', required: false, schema: { minLength: 8, maxLength: 64 } });
  });

  it('answers the success status with the response schema', () => {
    const created = operation.responses['201'];

    expect(created.description).toBe('The thing, created.');
    expect(created.content['application/json'].schema).toMatchObject({
      type: 'object',
      properties: { id: { format: 'uuid' }, next: { type: 'string', nullable: true } },
    });
  });

  it('documents every problem the route and the platform can answer, grouped by status, and no default', () => {
    const codes = Object.fromEntries(
      Object.keys(operation.responses as Record<string, any>)
        .filter((status) => /^[45]/.test(status))
        .map((status) => [status, responseOf(document, operation, status)['x-problem-codes']]),
    );

    expect(operation.responses.default).toBeUndefined();
    expect(codes).toEqual({
      // The ledger's catalogue: malformed input is `invalid` there.
      '400': ['invalid'],
      '401': ['unauthenticated'],
      // The ledger's credential hook resolves consumers only, so no kind is refused with the wrong-principal code.
      '403': ['insufficient_scope'],
      '404': ['ledger_not_found'],
      // An idempotency rule: a reused key, and one whose request is still running.
      '409': ['idempotency_in_flight', 'idempotency_key_reuse'],
      '413': ['payload_too_large'],
      '422': ['insufficient_funds', 'unbalanced'],
      '500': ['internal_error'],
      // The bulkhead on every route; a route with a credential to verify can find a dependency down.
      '503': ['bulkhead_full', 'service_unavailable'],
    });
    const forbidden = responseOf(document, operation, '403');
    expect(forbidden.description).toContain('`insufficient_scope`');
    // The spec names the ledger's problem schema ProblemDetails (part 7); each status narrows its codes.
    expect(forbidden.content['application/problem+json'].schema).toEqual({
      allOf: [
        { $ref: '#/components/schemas/ProblemDetails' },
        { type: 'object', properties: { status: { type: 'integer', enum: [403] }, code: { type: 'string', enum: ['insufficient_scope'] } } },
      ],
    });
    expect(responseOf(document, operation, '503').headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(document.components).toMatchObject({ examples: { insufficient_funds: { value: { code: 'insufficient_funds', status: 422 } } } });
  });

  it('shares one response component between the operations that answer the same problems the same way', () => {
    const reversal = document.paths[`${THING}/reversals`]!.post as any;

    expect(operation.responses['401']).toEqual({ $ref: '#/components/responses/Problem401_unauthenticated' });
    expect(reversal.responses['401']).toEqual(operation.responses['401']);
  });

  it('answers only a server failure and the bulkhead on a public route without input or dependencies', () => {
    expect(Object.keys(document.paths['/healthz']!.get!.responses as object)).toEqual(['200', '500', '503']);
    expect(responseOf(document, document.paths['/healthz']!.get, '503')['x-problem-codes']).toEqual(['bulkhead_full']);
  });

  it('refuses the wrong principal kind with the route’s own code where the credential hook can resolve another kind', () => {
    const route = defineRoute({ ...syntheticRoute, api: 'wallet', access: { principals: ['user_token'], scopes: ['things:write'], wrongPrincipal: 'consumer_token_required' } });

    const wallet = buildOpenApi([route], 'public', info) as any;

    expect(responseOf(wallet, wallet.paths[THING].post, '403')['x-problem-codes']).toEqual(['consumer_token_required', 'insufficient_scope']);
    // Only what the route's function answers is remembered under an Idempotency-Key and replayed.
    expect(responseOf(wallet, wallet.paths[THING].post, '404').headers['Idempotent-Replayed']).toBeDefined();
    expect(responseOf(wallet, wallet.paths[THING].post, '403').headers['Idempotent-Replayed']).toBeUndefined();
  });

  it('records the principal kinds and scopes in extensions and in the description', () => {
    expect(operation['x-principal-kinds']).toEqual(['ledger_consumer']);
    expect(operation['x-required-scopes']).toEqual(['things:write']);
    expect(operation.description).toContain('`things:write`');
    expect(operation.description).toContain('`ledger_consumer`');
  });
});

describe('component schemas', () => {
  it('names a shared schema once, with an Input variant when what clients send differs from what they read', async () => {
    const money = z.object({ amount: positiveAmount, currency: z._default(z.string(), 'USD') }).check(z.meta({ id: 'TestMoney' }));
    const route = defineRoute({
      ...syntheticRoute,
      request: { params: syntheticRoute.request.params, body: z.object({ price: money, fee: z.optional(money) }) },
      response: { status: 201, body: z.object({ price: money }), description: 'Priced.' },
    });

    const document = buildOpenApi([route], 'ledger', info);

    await validate(document);
    const schemas = (document.components as any).schemas;
    expect(Object.keys(schemas).sort()).toEqual(['ProblemDetails', 'TestMoney', 'TestMoneyInput']);
    expect(schemas.TestMoney.required).toEqual(['amount', 'currency']);
    expect(schemas.TestMoneyInput.required).toEqual(['amount']);
    const operation = document.paths[THING]!.post as any;
    expect(operation.requestBody.content['application/json'].schema.properties.price).toEqual({ $ref: '#/components/schemas/TestMoneyInput' });
    expect(operation.responses['201'].content['application/json'].schema.properties.price).toEqual({ $ref: '#/components/schemas/TestMoney' });
  });

  it('refers to a recursive schema instead of expanding it forever', async () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodMiniType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const route = defineRoute({ ...syntheticRoute, request: { params: syntheticRoute.request.params, body: z.object({ root: node }) } });

    const document = buildOpenApi([route], 'ledger', info);

    await validate(document);
    const root = (document.paths[THING]!.post as any).requestBody.content['application/json'].schema.properties.root;
    const name = /^#\/components\/schemas\/(.+)$/.exec(root.$ref)?.[1];
    expect(name).toBe('testCreateThing_body_0');
    expect((document.components as any).schemas[name!].properties.children.items).toEqual({ $ref: root.$ref });
  });

  it('refuses a response schema it cannot describe, naming the operation', () => {
    const route: AnyRoute = defineRoute({
      ...syntheticRoute,
      response: { status: 201, body: z.object({ size: z.pipe(z.string(), z.transform((value) => value.length)) }), description: 'x' },
    });

    expect(() => buildOpenApi([route], 'ledger', info)).toThrow(/testCreateThing\.response/);
  });
});

describe('toOpenApi30', () => {
  it('makes a nullable schema with a oneOf the schema or null, since null matches every branch that constrains properties', () => {
    const rule = { type: 'object', properties: { kind: { type: 'string' } }, oneOf: [{ properties: { kind: { enum: ['a'] } } }, { properties: { kind: { enum: ['b'] } } }] };

    expect(toOpenApi30({ ...rule, nullable: true })).toEqual({ anyOf: [rule, { type: 'object', nullable: true, enum: [null] }] });
    expect(toOpenApi30(rule)).toEqual(rule);
  });

  it('rewrites JSON Schema keywords into their OpenAPI 3.0 form', () => {
    const converted = toOpenApi30({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        kind: { const: 'posting' },
        note: { type: ['string', 'null'], examples: ['hi'] },
        count: { type: 'integer', exclusiveMinimum: 0 },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
        labels: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: 'string' } },
        tagged: { anyOf: [{ type: 'string' }, { not: {} }] },
      },
      required: ['kind'],
    });

    expect(converted).toEqual({
      type: 'object',
      properties: {
        kind: { enum: ['posting'] },
        note: { type: 'string', nullable: true, example: 'hi' },
        count: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        pair: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        tagged: { type: 'string' },
      },
      required: ['kind'],
    });
  });
});

describe('the documents of the real manifest', () => {
  const wallet = () => buildOpenApi(routes, 'public', info) as any;
  const ledger = () => buildOpenApi(routes, 'ledger', info) as any;

  it('document every status a route answers: a repeated device 200, a vendor support session 403', () => {
    expect(Object.keys(wallet().paths['/v1/devices'].post.responses)).toEqual(expect.arrayContaining(['200', '201']));
    const staffSessions = wallet().paths['/v1/auth/staff_sessions'].post;
    expect(responseOf(wallet(), staffSessions, '403')['x-problem-codes']).toContain('forbidden');
  });

  it("document the processor webhook's signature header and the replay, retry and request id headers", () => {
    const webhook = wallet().paths['/v1/processor_webhooks/{gateway}'].post;
    expect(webhook.parameters).toContainEqual(expect.objectContaining({ name: 'x-sandbox-signature', in: 'header', required: true }));
    const transfer = wallet().paths['/v1/transfers'].post;
    expect(transfer.responses['201'].headers).toMatchObject({ 'X-Request-Id': expect.anything(), 'Idempotent-Replayed': expect.anything() });
    expect(responseOf(wallet(), wallet().paths['/v1/auth/staff_sessions'].post, '429').headers['Retry-After']).toBeDefined();
  });

  it("name the ledger's problem schema ProblemDetails and list `invalid` in its 400s", () => {
    const document = ledger();
    expect(document.components.schemas.ProblemDetails).toBeDefined();
    expect(document.components.schemas.Problem).toBeUndefined();
    const posting = document.paths['/v1/ledgers/{ledgerId}/postings'].post;
    expect(responseOf(document, posting, '400')['x-problem-codes']).toEqual(['invalid']);
  });
});

describe('the check of what each operation documents (npm run openapi:check)', () => {
  const wallet = () => buildOpenApi(routes, 'public', info) as any;

  it('finds nothing wrong with the documents the manifest generates', () => {
    for (const gateway of GATEWAYS) expect(documentFaults(buildOpenApi(routes, gateway, info), routes, gateway), gateway).toEqual([]);
  });

  it('refuses a `default` response, naming the operation', () => {
    const document = wallet();
    document.paths['/v1/users/{userId}'].get.responses.default = { description: 'Anything else.' };

    expect(documentFaults(document, routes, 'public')).toEqual(['getUser: has a `default` response; list each status it answers instead']);
  });

  it('refuses a status the route cannot answer, naming the operation and the status', () => {
    const document = wallet();
    // A health probe has no credential, no input and no dependency: no 401, no 400, no 409.
    document.paths['/healthz'].get.responses['401'] = document.paths['/v1/users/{userId}'].get.responses['401'];
    document.paths['/v1/users/{userId}'].get.responses['409'] = { description: 'Conflict.' };

    expect(documentFaults(document, routes, 'public')).toEqual([
      'walletHealthz: documents status 401, which it never answers',
      'getUser: documents status 409, which it never answers',
    ]);
  });

  it('refuses a problem code the route does not answer at that status, and a status or code left out', () => {
    const document = wallet();
    const getUser = document.paths['/v1/users/{userId}'].get;
    getUser.responses['404'] = structuredClone(responseOf(document, getUser, '404'));
    getUser.responses['404']['x-problem-codes'].push('client_not_found');
    delete getUser.responses['500'];

    expect(documentFaults(document, routes, 'public')).toEqual([
      'getUser: documents `client_not_found` at status 404, which it never answers there',
      'getUser: leaves out status 500 (internal_error), which it answers',
    ]);
  });

  it('fails npm run openapi:check on a doctored committed document', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-check-'));
    try {
      cpSync(OPENAPI_DIR, dir, { recursive: true });
      expect(checkOpenApiFiles(dir)).toEqual([]);
      const doctored = JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8'));
      doctored.paths['/healthz'].get.responses.default = { description: 'Anything else.' };
      doctored.paths['/healthz'].get.responses['404'] = { description: 'Not found.' };
      writeFileSync(join(dir, 'ledger.json'), `${JSON.stringify(doctored, null, 2)}\n`);

      expect(checkOpenApiFiles(dir)).toEqual([
        'ledger.json: ledgerHealthz: documents status 404, which it never answers',
        'ledger.json: ledgerHealthz: has a `default` response; list each status it answers instead',
        expect.stringMatching(/^does not match the route manifest: ledger\.json\./),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('derives statuses from the route alone: 413 only where a body is read, 409 where idempotency applies', () => {
    const byId = Object.fromEntries(routes.map((route) => [route.operationId, route]));

    expect([...answersOf(byId.getUser!).keys()]).toEqual([200, 400, 401, 403, 404, 429, 500, 503]);
    expect(answersOf(byId.createTransfer!).get(409)).toEqual(expect.arrayContaining(['idempotency_key_reuse', 'idempotency_in_flight']));
    expect(answersOf(byId.createTransfer!).get(413)).toEqual(['payload_too_large']);
    // The wallet's /version admits every wallet credential, bound keys too, and asks no scope: no 403.
    expect(answersOf(byId.walletVersion!).has(403)).toBe(false);
    // The ledger's credential hook resolves consumers only, and its routes ask no scope.
    expect(answersOf(byId.getLedger!).has(403)).toBe(false);
    expect(answersOf(byId.listLedgerEvents!).get(403)).toEqual(['event_feed_blocked']);
  });
});

describe('request schemas that say what the API enforces', () => {
  const wallet = () => buildOpenApi(routes, 'public', info) as any;
  const ledger = () => buildOpenApi(routes, 'ledger', info) as any;
  const bodyOf = (document: any, path: string, method: string) => document.paths[path][method].requestBody.content['application/json'].schema;

  /** Every schema node under `node`, with its path, following component refs once each. */
  function* nodes(document: any, node: unknown, at: string, seen = new Set<string>()): Generator<[string, any]> {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) yield* nodes(document, item, `${at}[${index}]`, seen);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const ref = (node as any).$ref as string | undefined;
    if (ref?.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (!seen.has(name)) yield* nodes(document, document.components.schemas[name], at, new Set([...seen, name]));
      return;
    }
    yield [at, node];
    for (const [key, value] of Object.entries(node)) if (typeof value === 'object') yield* nodes(document, value, `${at}.${key}`, seen);
  }

  it('bounds metadata: string values of at most 500, at most 50 keys, the key rule in words', () => {
    const metadataSchema = bodyOf(wallet(), '/v1/users', 'post').properties.metadata;

    expect(metadataSchema).toMatchObject({ type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 500 } });
    expect(metadataSchema.description).toContain('1 to 40 characters');
    expect(z.safeParse(metadata, Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))).success).toBe(false);
  });

  it('refuses an empty PATCH or fee plan body in the schema too: minProperties 1', () => {
    const patches = [
      ...routes.filter((route) => route.method === 'PATCH' && route.api !== 'ledger').map((route) => [wallet(), route] as const),
      ...routes.filter((route) => route.method === 'PATCH' && route.api === 'ledger').map((route) => [ledger(), route] as const),
    ];

    expect(patches.length).toBeGreaterThanOrEqual(4);
    for (const [document, route] of patches) {
      expect(bodyOf(document, route.path, 'patch').minProperties, route.operationId).toBe(1);
      expect(z.safeParse(route.request.body!, {}).success, route.operationId).toBe(false);
    }
    expect(bodyOf(wallet(), '/v1/fee_plan', 'put').minProperties).toBe(1);
  });

  it('says a cross-field rule as oneOf or anyOf where a schema can: a stock change, a posting, a reward rule, a markup', () => {
    expect(bodyOf(wallet(), '/v1/clients/{clientId}/offerings/{offeringId}/variants/{variantId}/stock', 'post').oneOf).toEqual([
      { required: ['delta'] },
      { required: ['set_to'] },
    ]);
    expect(bodyOf(ledger(), '/v1/ledgers/{ledgerId}/postings', 'post').anyOf).toEqual([{ required: ['legs'] }, { required: ['post_pending_id'] }]);
    const rule = bodyOf(wallet(), '/v1/clients/{clientId}/reward_rules', 'post');
    expect(rule.oneOf.map((branch: any) => branch.properties.kind.enum)).toEqual([['cashback'], ['accrual']]);
    const offering = bodyOf(wallet(), '/v1/clients/{clientId}/offerings', 'post');
    // A nullable markup: the object with its rule per kind, or null.
    const [markupObject, markupNull] = offering.properties.markup.anyOf;
    expect(markupObject.oneOf.map((branch: any) => branch.properties.kind.enum)).toEqual([['percent'], ['fixed']]);
    expect(markupNull).toEqual({ type: 'object', nullable: true, enum: [null] });
    expect(offering.oneOf.map((branch: any) => branch.properties.kind.enum)).toEqual([['plan'], ['item']]);
  });

  it('enforces each helper rule in zod as the schema documents it', () => {
    const body = z.strictObject({ a: z.optional(z.int()), b: z.optional(z.int()) });

    expect(z.safeParse(someField(body, 'x'), {}).success).toBe(false);
    expect(z.safeParse(exactlyOneOf(body, ['a', 'b'], 'x'), { a: 1, b: 2 }).success).toBe(false);
    expect(z.safeParse(exactlyOneOf(body, ['a', 'b'], 'x'), { b: 2 }).success).toBe(true);
    expect(z.safeParse(oneOrMoreOf(body, ['a', 'b'], 'x'), {}).success).toBe(false);
    expect(z.toJSONSchema(exactlyOneOf(body, ['a', 'b'], 'x'), { target: 'openapi-3.0' })).toMatchObject({ oneOf: [{ required: ['a'] }, { required: ['b'] }] });
  });

  it('documents every number a body takes as an integer, but the one declared decimal field', () => {
    const numbers: string[] = [];
    for (const document of [wallet(), ledger(), buildOpenApi(routes, 'console', info)]) {
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
        for (const [method, operation] of Object.entries(item)) {
          for (const [at, node] of nodes(document, operation.requestBody, `${method} ${path}`)) if (node.type === 'number') numbers.push(at);
        }
      }
    }

    expect(numbers.length).toBeGreaterThan(0);
    // A markup's value (nullable where a markup may be cleared: then under its anyOf's object branch).
    expect(numbers.filter((at) => !/\.markup(\.anyOf\[0\])?\.properties\.value$/.test(at))).toEqual([]);
  });

  it("describes a webhook's free-form body as JSON whose numbers are integers, at any depth", () => {
    const document = wallet();

    expect(bodyOf(document, '/v1/processor_webhooks/{gateway}', 'post')).toEqual({ $ref: '#/components/schemas/IntegerJson' });
    expect(document.components.schemas.IntegerJson.anyOf).toContainEqual({ type: 'array', items: { $ref: '#/components/schemas/IntegerJson' } });
    expect(document.components.schemas.IntegerJson.anyOf).not.toContainEqual(expect.objectContaining({ type: 'number' }));
  });

  it('gives a currency its format', () => {
    expect(bodyOf(wallet(), '/v1/tenants', 'post').properties.currency.pattern).toBe(CURRENCY_PATTERN);
    expect(bodyOf(wallet(), '/v1/payments', 'post').properties.currency.pattern).toBe(CURRENCY_PATTERN);
  });

  it('says in the operation what depends on the caller, which no schema can', () => {
    const document = wallet();

    expect(document.paths['/v1/transfers'].post.description).toContain('`from_user_id` depends on the caller');
    expect(document.paths['/v1/payments'].post.description).toContain("`currency` must be the tenant's currency");
    expect(document.paths['/v1/payments'].get.description).toContain('`user_id` depends on the caller');
    expect(document.paths['/v1/webhook_endpoints'].post.description).toContain('sandbox credential');
  });
});
