import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { walletRuntime } from '../../shared/runtime/wallet-deps';
import { createFirstContactHandler } from '../../shared/wallet/auth/idp';
import { observed } from '../../shared/kernel/observability';

/** Queue worker: creates the wallet user (and its ledger account) of an IdP user first seen on a read route. */
const provision = createFirstContactHandler(walletRuntime);

export const handler = observed((event: SQSEvent): Promise<SQSBatchResponse> => provision(event));
