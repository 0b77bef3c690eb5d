import { config } from '../../shared/kernel/config';
import { createHttpHandler } from '../../shared/http/handler';
import { platformRoutes } from '../../shared/http/platform-routes';

export const handler = createHttpHandler(platformRoutes.ledgerVersion, async () => ({
  body: { version: config.PLATFORM_VERSION, stage: config.STAGE },
}));
