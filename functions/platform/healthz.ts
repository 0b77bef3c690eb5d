import { createHttpHandler } from '../../shared/http/handler';
import { platformRoutes } from '../../shared/http/platform-routes';

export const handler = createHttpHandler(platformRoutes.walletHealthz, async () => ({ body: { status: 'ok' } }));
