import { gateways, type GatewayName } from '../../shared/http/gateways';
import type { OperationExample } from '../../shared/http/openapi/document';
import type { JsonObject, OpenApiDocument } from '../../shared/http/openapi/schemas';
import type { AnyRoute } from '../../shared/http/route';
import { routes as manifestRoutes } from '../../shared/routes';
import { call, type CallResult } from './platform';

/**
 * Records the platform's real answers as the OpenAPI documents' examples (`npm run openapi:examples`,
 * test/api/openapi-examples.test.ts): each call goes through `call` (so it is checked against the
 * document like every API test's), is matched to its manifest route by gateway, method and path, and
 * the first 2xx answer of each operation is kept with the body that was sent. `normalize` then
 * makes the recording stable and safe to commit.
 */

export interface Recorded {
  gateway: GatewayName;
  operationId: string;
  request?: unknown;
  status: number;
  response?: unknown;
}

/** A route's path template as a pattern; literal segments are preferred over parameters when two match. */
function matcher(route: AnyRoute): { route: AnyRoute; pattern: RegExp; params: number } {
  const source = route.path.replace(/[.]/g, '\\.').replace(/\{\w+\+\}/g, '.+').replace(/\{\w+\}/g, '[^/]+');
  return { route, pattern: new RegExp(`^${source}$`), params: (route.path.match(/\{/g) ?? []).length };
}

export class ExampleRecorder {
  readonly recorded: Recorded[] = [];
  private readonly matchers = manifestRoutes.map(matcher);

  constructor(private readonly urls: Readonly<Record<GatewayName, string>>) {}

  routeOf(gateway: GatewayName, method: string, path: string): AnyRoute {
    const pathOnly = path.split('?')[0]!;
    const found = this.matchers
      .filter(({ route, pattern }) => route.method === method && gateways[gateway].apis.includes(route.api) && pattern.test(pathOnly))
      .sort((a, b) => a.params - b.params)[0];
    if (!found) throw new Error(`${method} ${pathOnly}: no route of the ${gateway} gateway`);
    return found.route;
  }

  /** One call, recorded when it is the operation's first success. */
  async call<T = any>(
    gateway: GatewayName,
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; token?: string } = {},
  ): Promise<CallResult<T>> {
    const result = await call<T>(this.urls[gateway], method, path, options);
    if (result.status >= 200 && result.status < 300) {
      const route = this.routeOf(gateway, method, path);
      const operationId = route.operationId;
      if (!this.recorded.some((entry) => entry.operationId === operationId && entry.gateway === gateway)) {
        this.recorded.push({
          gateway,
          operationId,
          // A body the route does not describe (an empty `{}` where none is taken) is not an example.
          ...(options.body === undefined || !route.request.body ? {} : { request: structuredClone(options.body) }),
          status: result.status,
          ...(result.text === '' ? {} : { response: structuredClone(result.body) }),
        });
      }
    }
    return result;
  }
}

// ---------------------------------------------------------------------------------------------
// Normalization

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/;
const API_KEY = /^sk_(live|sandbox|test)_/;
const WEBHOOK_SECRET = /^whsec_/;
/** A random hex run (a processor or rail reference): anything of 16 hex digits or more once UUIDs are mapped. */
const HEX_RUN = /[0-9a-f]{16,}/gi;
/** Fields that hold a secret whatever its form (a top-up's `client_secret`...). */
const SECRET_FIELD = /secret/i;

/** The instant every example is anchored at; recorded times keep their distance from the first one, in whole minutes. */
export const EXAMPLE_INSTANT = Date.parse('2026-01-15T09:30:00.000Z');

/** How long a recording may take: instants within it of the earliest are all the example instant. */
const RUN_SPAN = 10 * 60_000;

/** The n-th id met in the recording, as an example UUID (version 7 layout, obviously not random). */
export const exampleUuid = (n: number): string => `01940000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** Placeholders for what must never be committed: credentials and secrets the run generated. */
export const PLACEHOLDERS = {
  apiKey: 'sk_sandbox_example_not_a_real_key',
  jwt: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImV4YW1wbGUifQ.eyJleGFtcGxlIjoidG9rZW4ifQ.example-signature-not-real',
  webhookSecret: 'whsec_ZXhhbXBsZS1zZWNyZXQtbm90LXJlYWwtZXhhbXBsZXNlY3JldDA=',
  cursor: 'example_cursor_opaque',
} as const;

/**
 * Fields whose values are opaque and change at every run: replaced by a fixed placeholder. A value
 * that is an id is not opaque (the ledger's event feed answers the last event's id as its cursor)
 * and is mapped as every id is.
 */
const OPAQUE_FIELDS: Readonly<Record<string, string>> = { next_cursor: PLACEHOLDERS.cursor };
const AN_ID = new RegExp(`^${UUID.source}$`, 'i');

/**
 * The recording made stable and safe to commit: every UUID (wherever it appears, also inside a
 * string) mapped to an example UUID by order of first appearance, so an id refers to the same
 * object across the file; instants moved to EXAMPLE_INSTANT, those more than RUN_SPAN after the
 * earliest instant of the run keeping their distance from it in whole minutes; other random hex runs (processor references) mapped
 * the same way; API keys, JWTs, webhook secrets, any field named `*secret*` and cursors replaced
 * by placeholders. Returns one examples file per gateway, keyed by operationId.
 */
export function normalize(recorded: readonly Recorded[]): Record<GatewayName, Record<string, OperationExample>> {
  const ids = new Map<string, string>();
  let earliest = Number.POSITIVE_INFINITY;
  const visit = (value: unknown, each: (text: string) => void) => {
    if (typeof value === 'string') each(value);
    else if (Array.isArray(value)) value.forEach((item) => visit(item, each));
    else if (value && typeof value === 'object') Object.values(value).forEach((item) => visit(item, each));
  };
  for (const entry of recorded) {
    visit([entry.request, entry.response], (text) => {
      if (INSTANT.test(text)) earliest = Math.min(earliest, Date.parse(text));
    });
  }
  const idOf = (uuid: string) => {
    const key = uuid.toLowerCase();
    if (!ids.has(key)) ids.set(key, exampleUuid(ids.size + 1));
    return ids.get(key)!;
  };
  const hexes = new Map<string, string>();
  const hexOf = (run: string) => {
    const key = run.toLowerCase();
    if (!hexes.has(key)) hexes.set(key, (hexes.size + 1).toString(16).padStart(run.length, '0'));
    return hexes.get(key)!;
  };
  const secret = (value: string) => `${/^([a-z]+_)+/.exec(value)?.[0] ?? ''}example_not_a_real_secret`;
  const text = (value: string): string => {
    if (API_KEY.test(value)) return PLACEHOLDERS.apiKey;
    if (JWT.test(value)) return PLACEHOLDERS.jwt;
    if (WEBHOOK_SECRET.test(value)) return PLACEHOLDERS.webhookSecret;
    if (INSTANT.test(value)) {
      // The run's own "now"s (a few seconds to a minute apart) are one instant; what is set ahead
      // (a hold's expiry, a grant's end, a plan's next charge) keeps its distance in whole minutes.
      const distance = Date.parse(value) - earliest;
      const minutes = distance < RUN_SPAN ? 0 : Math.round(distance / 60_000);
      return new Date(EXAMPLE_INSTANT + minutes * 60_000).toISOString();
    }
    if (DATE.test(value)) return new Date(EXAMPLE_INSTANT).toISOString().slice(0, 10);
    return value.replace(UUID, idOf).replace(HEX_RUN, hexOf);
  };
  const rewrite = (value: unknown, key?: string): unknown => {
    if (key !== undefined && key in OPAQUE_FIELDS && typeof value === 'string' && !AN_ID.test(value)) return OPAQUE_FIELDS[key];
    if (key !== undefined && SECRET_FIELD.test(key) && typeof value === 'string' && !WEBHOOK_SECRET.test(value)) return secret(value);
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map((item) => rewrite(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, rewrite(item, name)]));
    return value;
  };
  const files = { public: {}, ledger: {}, console: {} } as Record<GatewayName, Record<string, OperationExample>>;
  for (const entry of recorded) {
    const example: OperationExample = { status: entry.status };
    if (entry.request !== undefined) example.request = rewrite(entry.request);
    if (entry.response !== undefined) example.response = rewrite(entry.response);
    files[entry.gateway][entry.operationId] = example;
  }
  return files;
}

/**
 * Each response example with its fields in the order its schema lists them (the order a reader of
 * the documents expects, and the same every run): maps stored in DynamoDB come back in no fixed
 * order (an order's lines, a fee plan's fees, a conversion rate), so the platform's answer alone
 * would write the files differently each time. Keys the schema does not name, and the keys of a
 * map, follow sorted. Requests stay as the scenario wrote them, which is already fixed. Before
 * `normalize`, which numbers ids in the order it meets them.
 */
export function inSchemaOrder(recorded: readonly Recorded[], documents: Readonly<Record<GatewayName, OpenApiDocument>>): Recorded[] {
  return recorded.map((entry) =>
    entry.response === undefined ? entry : { ...entry, response: orderBy(documents[entry.gateway], entry.response, responseSchema(documents[entry.gateway], entry.operationId, entry.status)) },
  );
}

function responseSchema(document: OpenApiDocument, operationId: string, status: number): unknown {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId !== operationId) continue;
      const response = resolve(document, (operation.responses as JsonObject | undefined)?.[String(status)]) as JsonObject | undefined;
      const content = Object.values((response?.content as Record<string, JsonObject> | undefined) ?? {})[0];
      return content?.schema;
    }
  }
  return undefined;
}

/** A `$ref` within the document followed to what it names (undefined when it names nothing). */
function resolve(document: OpenApiDocument, schema: unknown): unknown {
  let current = schema;
  for (let hops = 0; hops < 32 && current && typeof current === 'object' && '$ref' in current; hops += 1) {
    const ref = String((current as JsonObject).$ref);
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as JsonObject)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
  }
  return current;
}

/** The schemas a value must meet at once or may meet one of: the schema and its allOf/oneOf/anyOf branches, flattened. */
function branches(document: OpenApiDocument, schema: unknown): JsonObject[] {
  const resolved = resolve(document, schema);
  if (!resolved || typeof resolved !== 'object') return [];
  const node = resolved as JsonObject;
  const nested = ['allOf', 'oneOf', 'anyOf'].flatMap((key) => (Array.isArray(node[key]) ? (node[key] as unknown[]).flatMap((branch) => branches(document, branch)) : []));
  return [node, ...nested];
}

function orderBy(document: OpenApiDocument, value: unknown, schema: unknown): unknown {
  const all = branches(document, schema);
  if (Array.isArray(value)) {
    const items = all.find((node) => node.items !== undefined)?.items;
    return value.map((item) => orderBy(document, item, items));
  }
  if (!value || typeof value !== 'object') return value;
  const properties = new Map<string, unknown>();
  for (const node of all) {
    for (const [name, property] of Object.entries((node.properties as JsonObject | undefined) ?? {})) if (!properties.has(name)) properties.set(name, property);
  }
  const additional = all.find((node) => node.additionalProperties && typeof node.additionalProperties === 'object')?.additionalProperties;
  const entries = Object.entries(value as Record<string, unknown>);
  const named = [...properties.keys()].filter((name) => name in value);
  const others = entries.map(([name]) => name).filter((name) => !properties.has(name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const record = value as Record<string, unknown>;
  return Object.fromEntries([...named, ...others].map((name) => [name, orderBy(document, record[name], properties.get(name) ?? additional)]));
}

/** Sorted keys, so a file reads the same whatever order the scenario recorded in. */
export function sortedObject<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A value's shape: the same structure with every leaf replaced by its type, for comparing two recordings. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]));
  return value === null ? 'null' : typeof value;
}
