import { createHttpHandler } from '../../shared/http/handler';
import { servedDocumentFor } from '../../shared/http/openapi/served';

/** `GET /openapi.json`: the committed document, its first server the address the request came to. */
export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.ledgerOpenApi, async (request) => ({ body: servedDocumentFor('ledger', import.meta.url, request.origin) }));
