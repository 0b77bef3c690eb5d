import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { ledgerRuntime } from '../../shared/runtime/ledger';
import { observed } from '../../shared/kernel/observability';

/** Scheduled: moves every sharded account's shard balances into its own item (shared/ledger/shards.ts). */
export const handler = observed(async (_event: ScheduledEvent): Promise<{ swept: number }> => {
  const swept = await ledgerRuntime().service.sweepShards();
  if (swept > 0) logger.info('swept sharded accounts', { swept });
  return { swept };
});
