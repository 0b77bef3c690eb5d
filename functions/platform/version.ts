import { config } from '../../shared/kernel/config';
import { createHttpHandler } from '../../shared/http/handler';

export const handler = createHttpHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.ledgerVersion, async () => ({
  body: { version: config.PLATFORM_VERSION, stage: config.STAGE },
}));
