import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../shared/kernel/log';
import { operationLoaders } from '../../shared/wallet/saga/registry';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { observed } from '../../shared/kernel/observability';

// Every operation the sweeper can resume, loaded only when a sweep finds one unfinished: its cold
// start imports none of the wallet's services (test/unit/sweeper.test.ts holds the list whole).
operationLoaders({
  'catalog.import': () => import('../../shared/wallet/catalog/imports'),
  'credit_limit.set': () => import('../../shared/wallet/transfers/credit'),
  'marketing.fund': () => import('../../shared/wallet/rewards/wallet'),
  'order.cancel': () => import('../../shared/wallet/orders/cancel'),
  'order.create': () => import('../../shared/wallet/orders/create'),
  'order.pay': () => import('../../shared/wallet/orders/pay'),
  'payment.capture': () => import('../../shared/wallet/payments/capture'),
  'payment.create': () => import('../../shared/wallet/payments/payments'),
  'payment.void': () => import('../../shared/wallet/payments/capture'),
  'payout.create': () => import('../../shared/wallet/payouts/create'),
  'payout.settle': () => import('../../shared/wallet/payouts/settlement'),
  'points.convert': () => import('../../shared/wallet/rewards/wallet'),
  'refund.create': () => import('../../shared/wallet/orders/refunds'),
  'subscription.create': () => import('../../shared/wallet/subscriptions/subscribe'),
  'topup.create': () => import('../../shared/wallet/topups/create'),
  'topup.resolve': () => import('../../shared/wallet/topups/settlement'),
  'topup.settle': () => import('../../shared/wallet/topups/settlement'),
  'transfer.create': () => import('../../shared/wallet/transfers/transfers'),
  'webhooks.rotate_secret': () => import('../../shared/wallet/webhooks/rotation'),
});

/** Scheduled: finishes money operations a crash left between the ledger and the wallet. */
export const handler = observed(async (_event: ScheduledEvent): Promise<{ finished: number }> => {
  const finished = await sweepOperations(walletRuntime());
  if (finished > 0) logger.info('swept unfinished money operations', { finished });
  return { finished };
});
