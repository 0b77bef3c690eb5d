import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayName } from '../shared/http/gateways';
import { documentFaults } from '../shared/http/openapi/audit';
import { buildOpenApi } from '../shared/http/openapi/document';
import type { OpenApiDocument } from '../shared/http/openapi/schemas';
import { routes } from '../shared/routes';

/**
 * Writes the OpenAPI documents generated from the route manifest to docs/openapi/, one per
 * gateway. `--check` writes nothing and exits 1 when a committed file documents what its operation
 * cannot answer (a `default` response, a status or a problem code shared/http/answers.ts does not
 * derive for the route: shared/http/openapi/audit.ts) or differs from what the manifest generates
 * now, so CI refuses a route change whose documents were not regenerated.
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

/** Every document's text as it should be on disk: two-space JSON in build order, ending in a newline. */
export function renderOpenApiFiles(version = packageVersion()): Record<string, string> {
  return Object.fromEntries(
    Object.entries(OPENAPI_FILES).map(([file, gateway]) => [
      file,
      `${JSON.stringify(buildOpenApi(routes, gateway, { version }), null, 2)}\n`,
    ]),
  );
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
  const stale = staleOpenApiFiles(dir);
  return [...faults, ...(stale.length > 0 ? [`does not match the route manifest: ${stale.join(', ')}. Run \`npm run openapi\` and commit the result.`] : [])];
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
