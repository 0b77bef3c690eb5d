import { config } from '../../shared/config';
import { createHttpHandler } from '../../shared/http/handler';
import { platformRoutes } from '../../shared/platform/routes';

export const handler = createHttpHandler(platformRoutes.walletVersion, async () => ({
  body: { version: config.PLATFORM_VERSION, stage: config.STAGE },
}));
