import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { expireHolds } from '../../shared/wallet/payments/holds';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { observed } from '../../shared/kernel/observability';

/** Scheduled: voids authorizations whose hold has passed (`expired`, payment.expired once). */
export const handler = observed(async (_event: ScheduledEvent): Promise<{ expired: number }> => {
  const expired = await expireHolds(walletRuntime());
  if (expired > 0) logger.info('expired payment holds', { expired });
  return { expired };
});
