import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';

/** The committed console document (docs/openapi/console.json, shipped beside the bundle), with the deployed version. */
export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.consoleOpenApi, async () => ({ body: servedDocument('console', import.meta.url) }));
