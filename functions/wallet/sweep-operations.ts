import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/log';
import { sweepOperations } from '../../shared/wallet/operations';
import { walletRuntime } from '../../shared/wallet/runtime';
// Operations register themselves when their module loads: the sweeper resumes only what it imports.
import '../../shared/topups/service';
import '../../shared/transfers/transfers';
import '../../shared/payments/payments';

/** Scheduled: finishes money operations a crash left between the ledger and the wallet. */
export const handler = async (_event: ScheduledEvent): Promise<{ finished: number }> => {
  const finished = await sweepOperations(walletRuntime());
  if (finished > 0) logger.info('swept unfinished money operations', { finished });
  return { finished };
};
