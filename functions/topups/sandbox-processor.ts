import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { platformClock } from '../../shared/kernel/clock';
import { config } from '../../shared/kernel/config';
import { logger } from '../../shared/kernel/log';
import { deliverSandboxConfirmations, SANDBOX_GATEWAY } from '../../shared/wallet/topups/sandbox';
import { observed } from '../../shared/kernel/observability';

/** Queue worker: the sandbox processor's signed confirmations, POSTed to the wallet's public webhook. */
export const handler = observed(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  if (!config.SANDBOX_PROCESSOR_SECRET || !config.WALLET_PUBLIC_URL) throw new Error('SANDBOX_PROCESSOR_SECRET and WALLET_PUBLIC_URL must be set for the sandbox processor');
  return deliverSandboxConfirmations(event, {
    secret: config.SANDBOX_PROCESSOR_SECRET,
    webhookUrl: `${config.WALLET_PUBLIC_URL.replace(/\/+$/, '')}/v1/processor_webhooks/${SANDBOX_GATEWAY}`,
    // The platform's clock (the system's in AWS): the wallet checks the signature's age against its own.
    clock: platformClock,
    log: (message, details) => logger.warn(message, details),
  });
});
