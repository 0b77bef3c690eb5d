import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';
import { platformRoutes } from '../../shared/http/platform-routes';

/** The committed wallet document (docs/openapi/wallet.json, shipped beside the bundle), with the deployed version. */
export const handler = createHttpHandler(platformRoutes.walletOpenApi, async () => ({ body: servedDocument('wallet', import.meta.url) }));
