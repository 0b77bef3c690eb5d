import { config } from '../../shared/kernel/config';
import { createHttpHandler } from '../../shared/http/handler';
import { buildOpenApi } from '../../shared/http/openapi';
import { platformRoutes } from '../../shared/http/platform-routes';
import { routes } from '../../shared/routes';

/** Built once per cold start: the manifest cannot change while the function lives. */
const document = buildOpenApi(routes, 'ledger', { version: config.PLATFORM_VERSION });

export const handler = createHttpHandler(platformRoutes.ledgerOpenApi, async () => ({ body: document }));
