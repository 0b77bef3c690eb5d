import { createHttpHandler } from '../../shared/http/handler';
import { servedDocumentFor } from '../../shared/http/openapi/served';
import { platformRoutes } from '../../shared/http/platform-routes';

/** `GET /openapi.json`: the committed document, its first server the address the request came to. */
export const handler = createHttpHandler(platformRoutes.walletOpenApi, async (request) => ({ body: servedDocumentFor('wallet', import.meta.url, request.origin) }));
