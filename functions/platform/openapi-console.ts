import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';
import { platformRoutes } from '../../shared/http/platform-routes';

/** The committed console document (docs/openapi/console.json, shipped beside the bundle), with the deployed version. */
export const handler = createHttpHandler(platformRoutes.consoleOpenApi, async () => ({ body: servedDocument('console', import.meta.url) }));
