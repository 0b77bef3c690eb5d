import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { GatewayName } from '../shared/http/gateways';
import { documentFaults } from '../shared/http/openapi/audit';
import { buildOpenApi, type OperationExample } from '../shared/http/openapi/document';
import type { OpenApiDocument } from '../shared/http/openapi/schemas';
import { routes } from '../shared/routes';

/**
 * Writes the OpenAPI documents generated from the route manifest to docs/openapi/, one per
 * gateway. `--check` writes nothing and exits 1 when a committed file documents what its operation
 * cannot answer (a `default` response, a status or a problem code shared/http/answers.ts does not
 * derive for the route: shared/http/openapi/audit.ts) or differs from what the manifest generates
 * now, so CI refuses a route change whose documents were not regenerated. It also refuses a
 * recorded example (docs/openapi/examples/<file>, an input written by `npm run openapi:examples`
 * from the platform's real answers) that does not validate against its operation's schema.
 *
 *   npx tsx scripts/openapi.ts           regenerate
 *   npx tsx scripts/openapi.ts --check   verify
 */

const ROOT = resolve(import.meta.dirname, '..');
export const OPENAPI_DIR = join(ROOT, 'docs', 'openapi');

/** File name under docs/openapi/ -> the gateway it describes. */
export const OPENAPI_FILES: Readonly<Record<string, GatewayName>> = {
  'wallet.json': 'public',
  'ledger.json': 'ledger',
  'console.json': 'console',
};

/** The recorded examples of each document, beside it: docs/openapi/examples/<file>. */
export const EXAMPLES_DIR = join(OPENAPI_DIR, 'examples');

export type ExampleFile = Record<string, OperationExample>;

/** The committed examples of one document (none when the file is absent). */
export function readExamples(file: string, dir = EXAMPLES_DIR): ExampleFile {
  const path = join(dir, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as ExampleFile) : {};
}

/** Every document as generated now, with its committed examples. */
export function buildOpenApiFiles(version = packageVersion(), examplesDir = EXAMPLES_DIR): Record<string, OpenApiDocument> {
  return Object.fromEntries(
    Object.entries(OPENAPI_FILES).map(([file, gateway]) => [file, buildOpenApi(routes, gateway, { version, examples: readExamples(file, examplesDir) })]),
  );
}

/** Every document's text as it should be on disk: two-space JSON in build order, ending in a newline. */
export function renderOpenApiFiles(version = packageVersion()): Record<string, string> {
  return Object.fromEntries(Object.entries(buildOpenApiFiles(version)).map(([file, document]) => [file, `${JSON.stringify(document, null, 2)}\n`]));
}

type Json = Record<string, unknown>;

/** The schema with every local `$ref` replaced by what it names; a recursive one is cut where it comes back (any value). */
function inlined(node: unknown, root: Json, seen: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inlined(item, root, seen));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    if (seen.includes(ref)) return {};
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, part) => (at && typeof at === 'object' ? (at as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
    return inlined(target, root, [...seen, ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlined(value, root, seen)]));
}

/**
 * Every request and response example of the document that its schema refuses, validated with Ajv
 * (OpenAPI 3.0's `nullable` is Ajv's own keyword; formats from ajv-formats). A schema change that
 * the recorded examples no longer follow fails here until they are recorded again.
 */
export function exampleFaults(document: OpenApiDocument): string[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const faults: string[] = [];
  const check = (where: string, media: Json | undefined) => {
    if (!media || !('example' in media) || !media.schema) return;
    const validate = ajv.compile(inlined(media.schema, document as unknown as Json) as Json);
    if (!validate(media.example)) {
      for (const error of validate.errors ?? []) faults.push(`${where}: ${error.instancePath || 'example'} ${error.message} ${JSON.stringify(error.params)}`);
    }
  };
  for (const item of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const id = operation.operationId as string;
      for (const [type, media] of Object.entries(((operation.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>)) check(`${id} request ${type}`, media);
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) check(`${id} ${status} ${type}`, media);
      }
    }
  }
  return faults;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}

/** The files on disk that are missing, differ, or are no longer generated. */
export function staleOpenApiFiles(dir = OPENAPI_DIR): string[] {
  const expected = renderOpenApiFiles();
  const stale = Object.entries(expected)
    .filter(([file, text]) => {
      const path = join(dir, file);
      return !existsSync(path) || readFileSync(path, 'utf8') !== text;
    })
    .map(([file]) => file);
  const extra = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.json') && !(file in expected)) : [];
  return [...stale, ...extra];
}

/** What is wrong with the committed documents: each operation's faults, by file, then the stale files. */
export function checkOpenApiFiles(dir = OPENAPI_DIR): string[] {
  const faults = Object.entries(OPENAPI_FILES).flatMap(([file, gateway]) => {
    const path = join(dir, file);
    if (!existsSync(path)) return [];
    const document = JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument;
    return documentFaults(document, routes, gateway).map((fault) => `${file}: ${fault}`);
  });
  let examples: string[];
  try {
    examples = Object.entries(buildOpenApiFiles()).flatMap(([file, document]) => exampleFaults(document).map((fault) => `${file}: example of ${fault}`));
  } catch (error) {
    // An example naming what the document no longer has: nothing else can be generated.
    return [...faults, (error as Error).message];
  }
  const stale = staleOpenApiFiles(dir);
  return [...faults, ...examples, ...(stale.length > 0 ? [`does not match the route manifest: ${stale.join(', ')}. Run \`npm run openapi\` and commit the result.`] : [])];
}

function main(args: string[]): number {
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    console.error(`Unknown argument: ${unknown.join(' ')}\nUsage: tsx scripts/openapi.ts [--check]`);
    return 2;
  }
  const where = relative(process.cwd(), OPENAPI_DIR) || '.';
  if (args.includes('--check')) {
    const problems = checkOpenApiFiles();
    if (problems.length === 0) {
      console.log(`${where}: up to date, and every operation lists exactly what it answers`);
      return 0;
    }
    for (const problem of problems) console.error(`${where}/${problem}`);
    return 1;
  }
  mkdirSync(OPENAPI_DIR, { recursive: true });
  for (const [file, text] of Object.entries(renderOpenApiFiles())) {
    writeFileSync(join(OPENAPI_DIR, file), text);
    console.log(`wrote ${join(where, file)}`);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
