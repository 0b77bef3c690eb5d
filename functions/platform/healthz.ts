import { createHttpHandler } from '../../shared/http/handler';

export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.walletHealthz, async () => ({ body: { status: 'ok' } }));
