import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../shared/clock';
import { gateways, type GatewayName } from '../shared/http/gateways';
import type { AnyRoute } from '../shared/http/route';
import { installQueueTransport } from '../shared/platform/transport';
import type { QueueDefinition, WorkerDefinition } from '../shared/workers';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb';
import { LocalQueues, type QueueHandler } from './drivers/queue';
import { LocalScheduler, type ScheduleHandler } from './drivers/schedule';
import { StreamDriver, type StreamHandler } from './drivers/stream';
import { loadHandler, startGateway, type LambdaHandler, type LocalGateway } from './gateway';
import { assertPortFree } from './ports';
import { startDevIssuer, type DevIssuer } from './oidc-issuer';
import { ensureTables, type LocalTable } from './tables';
import type { TableKey } from '../shared/tables';

/**
 * The embedded platform: DynamoDB Local, the three gateways and the stream, queue and schedule
 * drivers, wired to the same handlers and table definitions the CDK stacks deploy. `npm start`
 * runs it with a data directory; the API tests run it in process with in-memory DynamoDB.
 *
 * Handlers read their configuration once, at first import, so this sets the environment before
 * it loads any of them; nothing here imports a module that reads configuration.
 */

export interface PlatformOptions {
  /** Where DynamoDB Local keeps its data and drivers their checkpoints; omit for in-memory. */
  dataDir?: string;
  /** Reuse a running DynamoDB Local (the test run starts one for every file). */
  dynamodbEndpoint?: string;
  /** Prefix of the table names, so several platforms can share one DynamoDB Local. */
  tablePrefix?: string;
  /** Listener ports per gateway; 0 picks a free one. Defaults from shared/http/gateways.ts. */
  ports?: Partial<Record<GatewayName, number>>;
  routes: readonly AnyRoute[];
  workers: readonly WorkerDefinition[];
  queues: readonly QueueDefinition[];
  /** The development OIDC issuer's port (stands in for Cognito); 0 picks a free one. Default 8090 or OIDC_PORT. */
  issuerPort?: number;
  /** Extra environment for the handlers (secrets generated into .data/, issuer URLs...). */
  env?: Record<string, string>;
  /** Replaces handler loading; tests use it for routes whose handlers live in the test. */
  handlerFor?: (entry: string) => Promise<unknown>;
  clock?: Clock;
  log?: (line: string) => void;
}

/** The audience ledger consumer tokens carry (the Cognito resource server identifier in AWS). */
export const LEDGER_AUDIENCE = 'ledger';

export interface Platform {
  urls: Record<GatewayName, string>;
  issuer: DevIssuer;
  dynamodbEndpoint: string;
  tables: Record<TableKey, LocalTable>;
  queues: LocalQueues;
  streams: StreamDriver | undefined;
  scheduler: LocalScheduler;
  stop(): Promise<void>;
}

export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const log = options.log ?? (() => undefined);
  const stack: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const close of stack.reverse()) await close().catch(() => undefined);
    stack.length = 0;
  };

  const ports = Object.fromEntries(
    (Object.keys(gateways) as GatewayName[]).map((name) => [
      name,
      options.ports?.[name] ?? Number(process.env[gateways[name].localPortEnv] ?? gateways[name].localPort),
    ]),
  ) as Record<GatewayName, number>;
  // Fail on a taken port before the JVM starts, with one clear line.
  for (const name of Object.keys(ports) as GatewayName[]) {
    if (ports[name] !== 0) await assertPortFree(ports[name], `the ${gateways[name].description}`);
  }

  try {
    let dynamodb: DynamoDbLocal | undefined;
    let endpoint = options.dynamodbEndpoint;
    if (!endpoint) {
      dynamodb = await startDynamoDbLocal({ dataDir: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined });
      stack.push(() => dynamodb!.stop());
      endpoint = dynamodb.endpoint;
    }

    const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const tables = await ensureTables(client, options.tablePrefix ?? 'wallet-local');
    client.destroy();

    const issuer = await startDevIssuer({
      port: options.issuerPort ?? Number(process.env.OIDC_PORT ?? 8090),
      dataDir: options.dataDir,
      audience: LEDGER_AUDIENCE,
      clock: options.clock,
    });
    stack.push(() => issuer.close());

    Object.assign(process.env, {
      OIDC_ISSUER: issuer.issuer,
      OIDC_AUDIENCE: LEDGER_AUDIENCE,
      STAGE: 'local',
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      DYNAMODB_ENDPOINT: endpoint,
      LEDGER_TABLE: tables.ledger.name,
      WALLET_TABLE: tables.wallet.name,
      VALIDATE_RESPONSES: 'true',
      ...options.env,
    });

    const load = (entry: string) => (options.handlerFor ?? loadHandler)(entry);
    const queues = new LocalQueues(options.queues, options.clock);
    installQueueTransport(queues);
    stack.push(async () => installQueueTransport(undefined));
    for (const worker of options.workers) {
      if (worker.trigger.kind !== 'queue') continue;
      queues.consume(worker.trigger.queue, {
        name: worker.name,
        handler: (await load(worker.handler)) as QueueHandler,
        batchSize: worker.trigger.batchSize,
      });
    }
    queues.start();
    stack.push(() => queues.stop());

    const streamWorkers = [];
    for (const worker of options.workers) {
      if (worker.trigger.kind !== 'stream') continue;
      streamWorkers.push({ name: worker.name, handler: (await load(worker.handler)) as StreamHandler, batchSize: worker.trigger.batchSize });
    }
    let streams: StreamDriver | undefined;
    if (streamWorkers.length > 0) {
      if (!tables.wallet.streamArn) throw new Error('the wallet table has no stream');
      streams = new StreamDriver({
        endpoint,
        streamArn: tables.wallet.streamArn,
        workers: streamWorkers,
        checkpointFile: options.dataDir ? join(options.dataDir, 'stream-checkpoints.json') : undefined,
        onError: (worker, error) => log(`stream worker ${worker} failed: ${String(error)}`),
      });
      streams.start();
      const started = streams;
      stack.push(() => started.stop());
    }

    const scheduled = [];
    for (const worker of options.workers) {
      if (worker.trigger.kind !== 'schedule') continue;
      scheduled.push({ name: worker.name, handler: (await load(worker.handler)) as ScheduleHandler, rateMinutes: worker.trigger.rateMinutes });
    }
    const scheduler = new LocalScheduler(scheduled, (worker, error) => log(`scheduled worker ${worker} failed: ${String(error)}`));
    scheduler.start();
    stack.push(() => scheduler.stop());

    const urls = {} as Record<GatewayName, string>;
    for (const name of Object.keys(gateways) as GatewayName[]) {
      const gateway: LocalGateway = await startGateway({
        gateway: name,
        routes: options.routes,
        port: ports[name],
        handlerFor: (route) => load(route.handler) as Promise<LambdaHandler>,
      });
      stack.push(() => gateway.close());
      urls[name] = gateway.url;
    }

    return { urls, issuer, dynamodbEndpoint: endpoint, tables, queues, streams, scheduler, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
