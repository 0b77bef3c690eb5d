import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { reconcileLedgers } from '../../shared/wallet/reconciliation/reconcile';
import { observed } from '../../shared/kernel/observability';

/** Scheduled: matches every tenant's ledger transactions and money records, lists orphans, writes their count. */
export const handler = observed(async (_event: ScheduledEvent) => {
  const result = await reconcileLedgers(walletRuntime());
  if (result.found > 0 || result.resolved > 0 || result.orphans > 0) logger.info('reconciliation', { ...result });
  return result;
});
