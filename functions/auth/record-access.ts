import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws/dynamodb';
import { platformClock } from '../../shared/kernel/clock';
import { tableName } from '../../shared/kernel/config';
import { uuidv7 } from '../../shared/kernel/ids';
import { createAccessRecordsHandler } from '../../shared/wallet/access-records';
import type { StoreDeps } from '../../shared/wallet/deps';
import { observed } from '../../shared/kernel/observability';

/** Queue worker: writes the access records requests queued (API key last use, support access, cross-tenant reads). */
let deps: StoreDeps | undefined;

const write = createAccessRecordsHandler(() => (deps ??= { client: createDocumentClient(), table: tableName('WALLET_TABLE'), clock: platformClock, ids: uuidv7 }));

export const handler = observed((event: SQSEvent): Promise<SQSBatchResponse> => write(event));
