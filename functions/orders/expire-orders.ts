import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { expireOrders } from '../../shared/wallet/orders/cancel';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { observed } from '../../shared/kernel/observability';

/** Scheduled: expires open orders past expires_at and releases their stock (order.expired once). */
export const handler = observed(async (_event: ScheduledEvent): Promise<{ expired: number }> => {
  const expired = await expireOrders(walletRuntime());
  if (expired > 0) logger.info('expired orders', { expired });
  return { expired };
});
