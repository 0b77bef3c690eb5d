import document from '../../docs/openapi/wallet.json' with { type: 'json' };
import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';
import { platformRoutes } from '../../shared/http/platform-routes';

/** The committed wallet document (docs/openapi/wallet.json), with the deployed version. */
export const handler = createHttpHandler(platformRoutes.walletOpenApi, async () => ({ body: servedDocument(document) }));
