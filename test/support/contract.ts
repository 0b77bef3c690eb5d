import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { ValidationContext } from 'openapi-backend';
import type { GatewayName } from '../../shared/http/gateways';
import { buildOpenApi } from '../../shared/http/openapi/document';
import type { AnyRoute } from '../../shared/http/route';

/**
 * Every real response the API suites receive is checked against the OpenAPI document of the API
 * that answered it, with an OpenAPI validator library (openapi-backend, on Ajv): the status must be
 * one the operation documents (there is no `default` response: shared/http/answers.ts derives every
 * status and problem code of a route), a problem's `code` must be one the document lists at that
 * status, the content type must be the documented one, and the body must match the documented
 * schema. A route that answers something its document does not say fails the test that saw it, so
 * the derivation cannot leave out what the platform really answers.
 *
 * The documents are generated from the platform's own route list, which for the real manifest is
 * exactly the committed docs/openapi/ (a unit test holds them equal), and for a test's extra routes
 * documents those too.
 */

type JsonObject = Record<string, any>;

interface Contract {
  backend: OpenAPIBackend;
  document: JsonObject;
  problem?: ValidateFunction;
}

const contracts = new Map<string, { routes: readonly AnyRoute[]; gateway: GatewayName; contract?: Contract }>();

/** Checks responses from `base` against the document of `gateway` built from `routes`. */
export function registerContract(base: string, routes: readonly AnyRoute[], gateway: GatewayName): void {
  contracts.set(base, { routes, gateway });
}

export function forgetContract(base: string): void {
  contracts.delete(base);
}

async function contractOf(base: string): Promise<Contract | undefined> {
  const entry = contracts.get(base);
  if (!entry) return undefined;
  if (!entry.contract) {
    const document = buildOpenApi(entry.routes, entry.gateway, { version: 'test' }) as JsonObject;
    const backend = new OpenAPIBackend({
      definition: validationCopy(document) as never,
      strict: false,
      // Compile each operation's validators when first used, not all at start.
      quick: true,
      validate: true,
      ajvOpts: { strict: false },
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await backend.init();
    entry.contract = { backend, document };
  }
  return entry.contract;
}

/**
 * The validator reads `application/json` schemas only; problems are `application/problem+json`.
 * In a copy used for validation, each problem schema is also offered as `application/json`.
 */
function validationCopy(document: JsonObject): JsonObject {
  const copy = inlineRefs(document, document) as JsonObject;
  const widen = (response: JsonObject) => {
    const problem = response.content?.['application/problem+json'];
    if (problem && !response.content['application/json']) response.content['application/json'] = { schema: problem.schema };
  };
  for (const item of Object.values(copy.paths as Record<string, Record<string, JsonObject>>)) {
    for (const operation of Object.values(item)) for (const response of Object.values(operation.responses ?? {})) widen(response as JsonObject);
  }
  return copy;
}

/**
 * The document with every local `$ref` replaced by what it names. A recursive schema (IntegerJson,
 * a webhook's free-form request body) is cut where it comes back: any value there. No response
 * schema is recursive, and responses are what this checks.
 */
function inlineRefs(node: unknown, root: JsonObject, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, root, seen));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as JsonObject).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    if (seen.includes(ref)) return {};
    const target = ref.slice(2).split('/').reduce<any>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    return inlineRefs(target, root, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlineRefs(value, root, seen)]));
}

/** What the fallback answers a request no operation serves (shared/http/fallback.ts). */
const UNROUTED: Record<number, string> = { 404: 'not_found', 405: 'method_not_allowed' };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const mediaType = (contentType: string | null) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** What is wrong with this response according to the document of the API at `base`; empty when nothing. */
export async function contractViolations(base: string, method: string, path: string, status: number, contentType: string | null, body: unknown): Promise<string[]> {
  const contract = await contractOf(base);
  if (!contract) return [];
  const pathOnly = path.split('?')[0]!;
  const operation = contract.backend.matchOperation({ method: method.toLowerCase(), path: pathOnly, headers: {} });
  const type = mediaType(contentType);
  if (!operation) {
    // Nothing serves this method and path: the fallback's 404 not_found or 405 method_not_allowed,
    // the only answers that belong to no operation (the documents' description says so).
    const unrouted = UNROUTED[status];
    if (!unrouted || type !== 'application/problem+json') return [`${method} ${pathOnly}: not in the document, answered ${status}`];
    if (!isObject(body) || body.code !== unrouted) return [`${method} ${pathOnly}: not in the document, answered ${status} with code ${isObject(body) ? String(body.code) : '(none)'}`];
    return problemViolations(contract, body);
  }
  const where = `${operation.operationId} answered ${status}`;
  const documented = (contract.document.paths[operation.path]?.[operation.method] as JsonObject | undefined)?.responses ?? {};
  const reference = documented[String(status)] as JsonObject | undefined;
  if (!reference) return [`${where}: the operation does not document this status (documented: ${Object.keys(documented).join(', ')})`];
  const explicit = inlineRefs(reference, contract.document) as JsonObject;
  const codes = explicit['x-problem-codes'] as string[] | undefined;
  if (codes && !(isObject(body) && typeof body.code === 'string' && codes.includes(body.code))) {
    return [`${where} with code ${isObject(body) ? String(body.code) : '(no problem body)'}: the document lists only ${codes.join(', ')} at this status`];
  }
  const types = Object.keys(explicit.content ?? {});
  if (types.length === 0) return body === '' || body === undefined ? [] : [`${where}: documented without a body, but one came`];
  if (!types.includes(type)) return [`${where}: content type ${contentType}, documented ${types.join(', ')}`];
  // A text body (the docs page and its script) is described as a string; the validator reads JSON only.
  if (!type.includes('json')) return typeof body === 'string' ? [] : [`${where}: a ${type} body that is not text`];
  const result = contract.backend.validateResponse(body, operation, status);
  return (result.errors ?? []).map((error) => `${where}: ${error.instancePath || 'body'} ${error.message} ${JSON.stringify(error.params)}`);
}

/** A problem+json body against the document's problem schema (which refers to nothing else). */
function problemViolations(contract: Contract, body: unknown): string[] {
  const name = contract.document.components.schemas.ProblemDetails ? 'ProblemDetails' : 'Problem';
  const validate = (contract.problem ??= contract.backend.validator.getAjv(ValidationContext.Response).compile(contract.document.components.schemas[name]));
  return validate(body) ? [] : (validate.errors ?? []).map((error) => `problem ${error.instancePath || 'body'} ${error.message}`);
}

/**
 * A fetch for the typed client (client/): every answer is checked against the document of the API
 * that sent it, as call() checks its answers, so the suites that go through the client are held to
 * the documents too.
 */
export const contractCheckedFetch: typeof globalThis.fetch = async (input, init) => {
  const request = input instanceof Request ? input : undefined;
  const url = new URL(request ? request.url : String(input));
  const method = (request?.method ?? init?.method ?? 'GET').toUpperCase();
  if (!contracts.has(url.origin)) throw new Error(`No OpenAPI document is registered for ${url.origin}: start the platform with startTestPlatform().`);
  const response = await globalThis.fetch(input, init);
  const text = await response.clone().text();
  const type = response.headers.get('content-type');
  const parsed = type?.includes('json') && text ? (JSON.parse(text) as unknown) : text;
  const violations = await contractViolations(url.origin, method, `${url.pathname}${url.search}`, response.status, type, parsed);
  if (violations.length > 0) throw new Error(`The response breaks the API's OpenAPI document:\n${violations.join('\n')}\n${text.slice(0, 2000)}`);
  return response;
};
