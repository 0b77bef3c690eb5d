import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { chargeDueSubscriptions } from '../../shared/wallet/subscriptions/billing';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { observed } from '../../shared/kernel/observability';

/** Scheduled: charges every subscription period (or dunning retry) that is due, each try once. */
export const handler = observed(async (_event: ScheduledEvent) => {
  const counts = await chargeDueSubscriptions(walletRuntime());
  if (Object.values(counts).some((n) => n > 0)) logger.info('subscription billing', { ...counts });
  return counts;
});
