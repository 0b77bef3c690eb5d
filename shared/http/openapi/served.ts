import { existsSync, readFileSync } from 'node:fs';
import { config } from '../../kernel/config';
import type { OpenApiDocument } from './schemas';

/**
 * What an `/openapi.json` route answers: the document `npm run openapi` generated and committed
 * (docs/openapi/, checked against the manifest by the test suite), with the deployed version in
 * `info.version`. It is read from a file, not bundled into the function: in a Lambda the bundle
 * script ships it beside index.mjs as `openapi-<api>.json` (scripts/bundle.ts, HANDLER_FILES); in
 * the repository (the embedded platform) it is docs/openapi/<api>.json. Serving the committed file
 * keeps the zod conversion, the whole manifest and a 900 KB JSON literal out of the cold start,
 * and guarantees the served document is the reviewed one.
 */

export type DocumentedApi = 'wallet' | 'ledger' | 'console';

const loaded = new Map<DocumentedApi, OpenApiDocument>();

/**
 * The document as served to one request: its first server is the address the request came to
 * (`origin`: ../handler.ts `requestOrigin`), so samples and "try it" call this deployment, at
 * its port and stage; the committed templated server follows it.
 */
export function servedDocumentFor(api: DocumentedApi, moduleUrl: string, origin: string | undefined): OpenApiDocument {
  const document = servedDocument(api, moduleUrl);
  if (origin === undefined) return document;
  const servers = (document.servers ?? []) as { url: string; description?: string }[];
  return { ...document, servers: [{ url: origin, description: 'This deployment: the address this document was read from.' }, ...servers] };
}

/** `moduleUrl`: the handler's `import.meta.url` (functions/platform/*.ts, or dist/platform/*\/index.mjs). */
export function servedDocument(api: DocumentedApi, moduleUrl: string): OpenApiDocument {
  let document = loaded.get(api);
  if (!document) {
    const candidates = [new URL(`./openapi-${api}.json`, moduleUrl), new URL(`../../docs/openapi/${api}.json`, moduleUrl)];
    const file = candidates.find((candidate) => existsSync(candidate));
    if (!file) throw new Error(`The ${api} OpenAPI document is not beside the function; run npm run openapi / npm run build`);
    const committed = JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument & { info: Record<string, unknown> };
    document = { ...committed, info: { ...committed.info, version: config.PLATFORM_VERSION } };
    loaded.set(api, document);
  }
  return document;
}
