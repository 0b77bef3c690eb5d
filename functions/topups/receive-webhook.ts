import { receiveProcessorWebhook } from '../../shared/wallet/topups/settlement';
import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';

/** Public: the processor's signature over the raw body is the credential (checked by the service). */
export const handler = walletHandler(async () => (await import('../../shared/wallet/topups/routes')).topupRoutes.receiveProcessorWebhook, async ({ request, runtime }) =>
  outcomeResult(
    await receiveProcessorWebhook(runtime, { gateway: request.params.gateway, rawBody: request.rawBody, headers: request.headers, requestId: request.requestId }),
  ),
);
