import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { ledgerRuntime } from '../../shared/runtime/ledger';
import { observed } from '../../shared/kernel/observability';

/** Scheduled: voids every pending posting whose expiry has passed (status `expired`). */
export const handler = observed(async (_event: ScheduledEvent): Promise<{ expired: number }> => {
  const expired = await ledgerRuntime().service.expirePendings();
  if (expired > 0) logger.info('expired pending postings', { expired });
  return { expired };
});
