import { answersOf } from '../answers';
import { gateways, type GatewayName } from '../gateways';
import type { AnyRoute } from '../route';
import { isObject, type JsonObject, type OpenApiDocument } from './schemas';

/**
 * Holds a document to what its operations can answer (../answers.ts), whoever wrote it: no
 * operation has a `default` response, every status it lists is one the route can answer, every
 * problem code listed at a status is answered there, and nothing the route can answer is left out.
 * `npm run openapi:check` runs it over the committed documents; each fault names the operation.
 */
export function documentFaults(document: OpenApiDocument, routes: readonly AnyRoute[], gateway: GatewayName): string[] {
  const served = new Map(routes.filter((route) => gateways[gateway].apis.includes(route.api)).map((route) => [route.operationId, route]));
  const faults: string[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const id = typeof operation.operationId === 'string' ? operation.operationId : `${method.toUpperCase()} ${path}`;
      const route = served.get(id);
      if (!route) {
        faults.push(`${id}: not an operation of the route manifest on the ${gateway} gateway`);
        continue;
      }
      seen.add(id);
      faults.push(...operationFaults(document, route, isObject(operation.responses) ? operation.responses : {}));
    }
  }
  for (const id of served.keys()) if (!seen.has(id)) faults.push(`${id}: missing from the document`);
  return faults;
}

function operationFaults(document: OpenApiDocument, route: AnyRoute, responses: JsonObject): string[] {
  const id = route.operationId;
  const answers = answersOf(route);
  const faults: string[] = [];
  for (const [status, listed] of Object.entries(responses)) {
    if (status === 'default') {
      faults.push(`${id}: has a \`default\` response; list each status it answers instead`);
      continue;
    }
    const answer = answers.get(Number(status));
    if (!/^\d{3}$/.test(status) || answer === undefined) {
      faults.push(`${id}: documents status ${status}, which it never answers`);
      continue;
    }
    if (answer === 'success') continue;
    const codes = codesOf(document, listed);
    if (codes.length === 0) faults.push(`${id}: documents status ${status} without its problem codes`);
    for (const code of codes) {
      if (!answer.includes(code as never)) faults.push(`${id}: documents \`${code}\` at status ${status}, which it never answers there`);
    }
    for (const code of answer) {
      if (!codes.includes(code)) faults.push(`${id}: leaves out \`${code}\`, which it answers with status ${status}`);
    }
  }
  for (const [status, answer] of answers) {
    if (!(String(status) in responses)) {
      faults.push(`${id}: leaves out status ${status}${answer === 'success' ? '' : ` (${answer.join(', ')})`}, which it answers`);
    }
  }
  return faults;
}

/** The problem codes a response lists: its `x-problem-codes` and the `code` enum of its schema. */
function codesOf(document: OpenApiDocument, response: unknown): string[] {
  const resolved = resolve(document, response);
  const codes = new Set<string>();
  if (Array.isArray(resolved['x-problem-codes'])) for (const code of resolved['x-problem-codes']) codes.add(String(code));
  const content = isObject(resolved.content) ? Object.values(resolved.content) : [];
  for (const media of content) {
    const schema = isObject(media) ? resolve(document, media.schema) : {};
    for (const part of [schema, ...(Array.isArray(schema.allOf) ? schema.allOf.map((branch) => resolve(document, branch)) : [])]) {
      const code = isObject(part.properties) ? resolve(document, part.properties.code) : {};
      if (Array.isArray(code.enum)) for (const value of code.enum) codes.add(String(value));
    }
  }
  return [...codes];
}

/** A local `$ref` followed to what it names (one level at a time, as far as it goes). */
function resolve(document: OpenApiDocument, node: unknown, depth = 0): JsonObject {
  if (!isObject(node)) return {};
  if (typeof node.$ref !== 'string' || !node.$ref.startsWith('#/') || depth > 16) return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, part) => (isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), document);
  return resolve(document, target, depth + 1);
}
