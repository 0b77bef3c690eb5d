import { config } from '../../shared/kernel/config';
import { walletHandler } from '../../shared/runtime/wallet';

// A wallet route like any other: the credential hook runs first (the spec exempts only /healthz).
export const handler = walletHandler(async () => (await import('../../shared/http/platform-routes')).platformRoutes.walletVersion, async () => ({
  body: { version: config.PLATFORM_VERSION, stage: config.STAGE },
}));
