import type { DynamoDBStreamEvent } from 'aws-lambda';
import { retryOnCredit } from '../../shared/wallet/subscriptions/manage';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { observed } from '../../shared/kernel/observability';

/** Stream worker: a credited payer's past-due subscriptions become due now (retried within a minute). */
export const handler = observed(async (event: DynamoDBStreamEvent): Promise<{ advanced: number }> => ({ advanced: await retryOnCredit(walletRuntime(), event.Records) }));
