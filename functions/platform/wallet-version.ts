import { config } from '../../shared/kernel/config';
import { platformRoutes } from '../../shared/http/platform-routes';
import { walletHandler } from '../../shared/runtime/wallet';

// A wallet route like any other: the credential hook runs first (the spec exempts only /healthz).
export const handler = walletHandler(platformRoutes.walletVersion, async () => ({
  body: { version: config.PLATFORM_VERSION, stage: config.STAGE },
}));
