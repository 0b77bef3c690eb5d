import { outcomeResult } from '../../shared/http/outcome';
import { walletHandler } from '../../shared/runtime/wallet';
import { receiveRailWebhook } from '../../shared/wallet/payouts/settlement';

/** Public: the rail's signature over the raw body is the credential (checked by the service). */
export const handler = walletHandler(async () => (await import('../../shared/wallet/payouts/routes')).payoutRoutes.receiveRailWebhook, async ({ request, runtime }) =>
  outcomeResult(await receiveRailWebhook(runtime, { rail: request.params.rail, rawBody: request.rawBody, headers: request.headers, requestId: request.requestId })),
);
