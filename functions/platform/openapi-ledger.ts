import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';

/** The committed ledger document (docs/openapi/ledger.json, shipped beside the bundle), with the deployed version. */
export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.ledgerOpenApi, async () => ({ body: servedDocument('ledger', import.meta.url) }));
