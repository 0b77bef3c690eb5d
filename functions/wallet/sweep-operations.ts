import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { sweepOperations } from '../../shared/wallet/saga';
import { walletRuntime } from '../../shared/runtime/wallet';
// Operations register themselves when their module loads: the sweeper resumes only what it imports.
import '../../shared/wallet/topups/create';
import '../../shared/wallet/topups/settlement';
import '../../shared/wallet/transfers/transfers';
import '../../shared/wallet/transfers/credit';
import '../../shared/wallet/payments/payments';
import '../../shared/wallet/payments/capture';
import '../../shared/wallet/payments/refunds';
import '../../shared/wallet/catalog/imports';
import '../../shared/wallet/orders/create';
import '../../shared/wallet/orders/pay';
import '../../shared/wallet/orders/cancel';
import '../../shared/wallet/subscriptions/subscribe';
import '../../shared/wallet/rewards/wallet';
import '../../shared/wallet/payouts/create';
import '../../shared/wallet/payouts/settlement';
import '../../shared/wallet/webhooks/rotation';

/** Scheduled: finishes money operations a crash left between the ledger and the wallet. */
export const handler = async (_event: ScheduledEvent): Promise<{ finished: number }> => {
  const finished = await sweepOperations(walletRuntime());
  if (finished > 0) logger.info('swept unfinished money operations', { finished });
  return { finished };
};
