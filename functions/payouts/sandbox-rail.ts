import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { platformClock } from '../../shared/kernel/clock';
import { config } from '../../shared/kernel/config';
import { logger } from '../../shared/kernel/log';
import { deliverSandboxRailConfirmations, SANDBOX_RAIL } from '../../shared/wallet/payouts/sandbox';
import { observed } from '../../shared/kernel/observability';

/** Queue worker: the sandbox payout rail's signed confirmations, POSTed to the wallet's public rail webhook. */
export const handler = observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  if (!config.SANDBOX_PROCESSOR_SECRET || !config.WALLET_PUBLIC_URL) throw new Error('SANDBOX_PROCESSOR_SECRET and WALLET_PUBLIC_URL must be set for the sandbox payout rail');
  return deliverSandboxRailConfirmations(event, {
    secret: config.SANDBOX_PROCESSOR_SECRET,
    webhookUrl: `${config.WALLET_PUBLIC_URL.replace(/\/+$/, '')}/v1/payout_rail_webhooks/${SANDBOX_RAIL}`,
    // The platform's clock (the system's in AWS): the wallet checks the signature's age against its own.
    clock: platformClock,
    log: (message, details) => logger.warn(message, details),
  });
});
