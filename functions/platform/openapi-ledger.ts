import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';
import { platformRoutes } from '../../shared/http/platform-routes';

/** The committed ledger document (docs/openapi/ledger.json, shipped beside the bundle), with the deployed version. */
export const handler = createHttpHandler(platformRoutes.ledgerOpenApi, async () => ({ body: servedDocument('ledger', import.meta.url) }));
