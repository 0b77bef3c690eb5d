import { createHttpHandler } from '../../shared/http/handler';
import { servedDocument } from '../../shared/http/openapi/served';

/** The committed wallet document (docs/openapi/wallet.json, shipped beside the bundle), with the deployed version. */
export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.walletOpenApi, async () => ({ body: servedDocument('wallet', import.meta.url) }));
