import type { DynamoDBStreamEvent } from 'aws-lambda';
import { retryOnCredit } from '../../shared/wallet/subscriptions/manage';
import { walletRuntime } from '../../shared/runtime/wallet';

/** Stream worker: a credited payer's past-due subscriptions become due now (retried within a minute). */
export const handler = async (event: DynamoDBStreamEvent): Promise<{ advanced: number }> => ({ advanced: await retryOnCredit(walletRuntime(), event.Records) });
