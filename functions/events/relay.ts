import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createDocumentClient } from '../../shared/aws/dynamodb';
import { platformClock } from '../../shared/kernel/clock';
import { tableName } from '../../shared/kernel/config';
import { createRelayHandler, type RelayDeps } from '../../shared/wallet/webhooks/relay';
import { uuidv7 } from '../../shared/kernel/ids';
import { logger } from '../../shared/kernel/log';
import { eventBusTransport } from '../../shared/aws/bus';
import { queueTransport } from '../../shared/aws/queue';
import { observed } from '../../shared/kernel/observability';

/** Stream worker: the outbox relay (EventBridge and webhook deliveries; shared/wallet/webhooks/relay.ts). */
let deps: RelayDeps | undefined;

const relay = createRelayHandler(() =>
  (deps ??= {
    client: createDocumentClient(),
    table: tableName('WALLET_TABLE'),
    // The embedded platform's clock when it installed one (tests move time), else the system's.
    clock: platformClock,
    ids: uuidv7,
    // Resolved per call: the embedded platform installs its drivers before handlers run.
    bus: { publish: (events) => eventBusTransport().publish(events) },
    queue: { send: (queue, body, options) => queueTransport().send(queue, body, options) },
    log: (message, details) => logger.error(message, { ...details }),
  }),
);

export const handler = observed((event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => relay(event));
