import document from '../../docs/openapi/ledger.json' with { type: 'json' };
import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';
import { platformRoutes } from '../../shared/http/platform-routes';

/** The committed ledger document (docs/openapi/ledger.json), with the deployed version. */
export const handler = createHttpHandler(platformRoutes.ledgerOpenApi, async () => ({ body: servedDocument(document) }));
