import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws/dynamodb';
import { platformClock } from '../../shared/kernel/clock';
import { config, tableName } from '../../shared/kernel/config';
import { uuidv7 } from '../../shared/kernel/ids';
import { logger } from '../../shared/kernel/log';
import { queueTransport } from '../../shared/aws/queue';
import { DELIVERY_TIMEOUT_MS } from '../../shared/wallet/webhooks/deliveries';
import type { DeliveryDeps } from '../../shared/wallet/webhooks/attempts';
import { sandboxTargetsOf } from '../../shared/wallet/webhooks/addresses';
import { systemResolver } from '../../shared/wallet/webhooks/http';
import { createDeliveryHandler } from '../../shared/wallet/webhooks/worker';
import { observed } from '../../shared/kernel/observability';

/** Queue worker: one webhook delivery attempt per message (shared/wallet/webhooks/deliveries.ts). */
let deps: DeliveryDeps | undefined;

const deliver = createDeliveryHandler(() =>
  (deps ??= {
    client: createDocumentClient(),
    table: tableName('WALLET_TABLE'),
    // The embedded platform's clock when it installed one (tests move time), else the system's.
    clock: platformClock,
    ids: uuidv7,
    // Resolved per send: the embedded platform installs its queue driver before handlers run.
    queue: { send: (queue, body, options) => queueTransport().send(queue, body, options) },
    http: { resolve: systemResolver, sandboxTargets: sandboxTargetsOf(config.WEBHOOK_ALLOW_PRIVATE_TARGETS), timeoutMs: DELIVERY_TIMEOUT_MS },
    log: (message, details) => logger.warn(message, { ...details }),
  }),
);

export const handler = observed((event: SQSEvent): Promise<SQSBatchResponse> => deliver(event));
