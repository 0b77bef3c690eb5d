import { config } from '../../kernel/config';
import type { OpenApiDocument } from './schemas';

/**
 * What an `/openapi.json` route answers: the document `npm run openapi` generated and committed
 * (docs/openapi/, checked against the manifest by the test suite), bundled into the function as
 * JSON, with the deployed version in `info.version`. Serving the committed file keeps the zod
 * conversion and the whole manifest out of the function's cold start, and guarantees the served
 * document is the reviewed one.
 */
export function servedDocument(document: unknown): OpenApiDocument {
  const committed = document as OpenApiDocument & { info: Record<string, unknown> };
  return { ...committed, info: { ...committed.info, version: config.PLATFORM_VERSION } };
}
