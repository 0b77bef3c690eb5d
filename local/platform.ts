import { join } from 'node:path';
import { installPlatformClock, systemClock } from '../shared/kernel/clock';
import { uuidv7 } from '../shared/kernel/ids';
import { createConsumerStore } from '../shared/ledger/consumers';
import type { Clock } from '../shared/kernel/clock';
import { gateways, type GatewayName, type ThrottleSettings } from '../shared/http/gateways';
import type { AnyRoute } from '../shared/http/route';
import { installEventBusTransport } from '../shared/aws/bus';
import { installQueueTransport } from '../shared/aws/queue';
import { InMemoryEventBus } from '../shared/aws/transport';
import { WORKER_TIMEOUT_SECONDS, type QueueDefinition, type WorkerDefinition } from '../shared/workers';
import { LOCAL_CREDENTIALS, LOCAL_REGION, LocalStartError, localDocumentClient, localSdkClient, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb';
import { LocalQueues, type QueueHandler } from './drivers/queue';
import { dynamoQueueJournal } from './drivers/queue-journal';
import { LocalScheduler, type ScheduleHandler } from './drivers/schedule';
import { StreamDriver, type StreamHandler } from './drivers/stream';
import { installInvocationScopes } from './drivers/invocations';
import { loadHandler, startGateway, type LambdaHandler, type LocalGateway } from './gateway';
import { assertPortFree, assertUsablePort, OIDC_DEFAULT_PORT, reservePort } from './ports';
import { startDevIssuer, type DevIssuer } from './oidc-issuer';
import { parseThrottle } from './throttle';
import { ensureTables, localDatabases, type LocalTable } from './tables';
import { localDatabaseOf } from '../shared/aws/dynamodb';
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
  /** The development OIDC issuer's port (stands in for Cognito); 0 picks a free one. Default OIDC_DEFAULT_PORT or OIDC_PORT. */
  issuerPort?: number;
  /** Extra environment for the handlers (secrets generated into .data/, issuer URLs...). */
  env?: Record<string, string>;
  /** Replaces handler loading; tests use it for routes whose handlers live in the test. */
  handlerFor?: (entry: string) => Promise<unknown>;
  clock?: Clock;
  log?: (line: string) => void;
  /** Told each step of the start as it begins (`npm start` prints them); silent by default. */
  progress?: (step: string) => void;
  /** Requests in flight per route before 503 bulkhead_full; default GATEWAY_MAX_IN_FLIGHT or 256. */
  maxInFlightPerRoute?: number;
  /**
   * Each gateway's throttle (per method and credential, ./throttle.ts), null for none; by default
   * the gateway's `*_THROTTLE` variable, else the AWS stage's (shared/http/gateways.ts: public
   * 100/200, console 20/40, ledger none). Tests turn it off or make it tiny.
   */
  throttle?: Partial<Record<GatewayName, ThrottleSettings | null>>;
  /**
   * Whether the schedule workers also run on their rates (EventBridge's, in real time); default
   * true. False for a test that moves an injected clock and runs each one itself
   * (`scheduler.run`): a run of the rate's landing between its steps on a slow machine would do
   * the work it is about to check, or race it.
   */
  scheduleRates?: boolean;
}

function maxInFlightFromEnv(): number | undefined {
  const value = process.env.GATEWAY_MAX_IN_FLIGHT;
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9]\d{0,5}$/.test(value)) throw new LocalStartError(`GATEWAY_MAX_IN_FLIGHT must be a whole number from 1 to 999999; got ${value}`);
  return Number(value);
}

/** A gateway's throttle: the option, else its `*_THROTTLE` variable (`<rate>/<burst>` or `off`), else the AWS stage's. */
function throttleOf(name: GatewayName, options: PlatformOptions): ThrottleSettings | null {
  if (options.throttle && name in options.throttle) return options.throttle[name] ?? null;
  const gateway = gateways[name];
  const value = gateway.localThrottleEnv ? process.env[gateway.localThrottleEnv] : undefined;
  if (value === undefined || value === '' || !gateway.localThrottleEnv) return gateway.throttle;
  try {
    return parseThrottle(value, gateway.localThrottleEnv);
  } catch (error) {
    throw new LocalStartError((error as Error).message);
  }
}

/** The wallet's own client id with the issuer, and the `sub` of its ledger consumer. */
export const WALLET_LEDGER_CLIENT = 'wallet';

async function ensureWalletConsumer(endpoint: string, ledgerTable: string): Promise<void> {
  const store = createConsumerStore(localDocumentClient(endpoint), ledgerTable, systemClock, uuidv7);
  await store.ensureConsumer({ name: WALLET_LEDGER_CLIENT, sub: WALLET_LEDGER_CLIENT });
}

/** The audience ledger consumer tokens carry (the Cognito resource server identifier in AWS). */
export const LEDGER_AUDIENCE = 'ledger';
export { OIDC_DEFAULT_PORT } from './ports';

export interface Platform {
  urls: Record<GatewayName, string>;
  issuer: DevIssuer;
  dynamodbEndpoint: string;
  tables: Record<TableKey, LocalTable>;
  queues: LocalQueues;
  /** What the relay published to the event bus (EventBridge in AWS). */
  events: InMemoryEventBus;
  streams: StreamDriver | undefined;
  scheduler: LocalScheduler;
  stop(): Promise<void>;
}

/** How long a stop waits for requests in flight before it closes their connections. */
const DRAIN_TIMEOUT_MS = 15_000;

/**
 * Closes the gateways after the workers stopped: each stops accepting connections and closes its
 * idle ones, the requests in flight finish (a wallet request still calls the ledger, so the ledger
 * gateway closes last), then the remaining connections are closed.
 */
async function drainGateways(opened: readonly LocalGateway[]): Promise<void> {
  const ledgerLast = [...opened].sort((a, b) => Number(a.name === 'ledger') - Number(b.name === 'ledger'));
  const outer = ledgerLast.filter((gateway) => gateway.name !== 'ledger');
  await Promise.all(outer.map((gateway) => gateway.close({ drainMs: DRAIN_TIMEOUT_MS })));
  await Promise.all(ledgerLast.filter((gateway) => gateway.name === 'ledger').map((gateway) => gateway.close({ drainMs: DRAIN_TIMEOUT_MS })));
}

export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const log = options.log ?? (() => undefined);
  const progress = options.progress ?? (() => undefined);
  // Before any AWS SDK call: the SDK's first call creates the process's InvokeStore.
  await installInvocationScopes(log);
  const stack: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const close of stack.reverse()) await close().catch(() => undefined);
    stack.length = 0;
  };

  const ports = {} as Record<GatewayName, number>;
  const reserved = new Map<GatewayName, () => Promise<void>>();
  const issuerPort = options.issuerPort ?? Number(process.env.OIDC_PORT ?? OIDC_DEFAULT_PORT);
  assertUsablePort(issuerPort, 'the dev OIDC issuer', 'OIDC_PORT');
  if (issuerPort !== 0) await assertPortFree(issuerPort, 'the dev OIDC issuer', '127.0.0.1', 'OIDC_PORT');
  for (const name of Object.keys(gateways) as GatewayName[]) {
    const envVar = gateways[name].localPortEnv;
    const port = options.ports?.[name] ?? Number(process.env[envVar] ?? gateways[name].localPort);
    // Fail on an unusable or taken port before the JVM starts, with one clear line naming the
    // variable that moves it. A port of 0 is resolved now, so every URL is known before any
    // handler reads its configuration.
    assertUsablePort(port, `the ${gateways[name].description}`, envVar);
    if (port !== 0) await assertPortFree(port, `the ${gateways[name].description}`, '127.0.0.1', envVar);
    if (port === 0) {
      const reservation = await reservePort();
      reserved.set(name, reservation.release);
      stack.push(reservation.release);
      ports[name] = reservation.port;
    } else ports[name] = port;
  }
  const urls = Object.fromEntries((Object.keys(ports) as GatewayName[]).map((name) => [name, `http://127.0.0.1:${ports[name]}`])) as Record<GatewayName, string>;
  // Read before anything starts, so a malformed *_THROTTLE fails in one line, like a bad port.
  let throttles: Record<GatewayName, ThrottleSettings | null>;
  try {
    throttles = Object.fromEntries((Object.keys(gateways) as GatewayName[]).map((name) => [name, throttleOf(name, options)])) as Record<GatewayName, ThrottleSettings | null>;
  } catch (error) {
    await stop();
    throw error;
  }

  try {
    const prefix = options.tablePrefix ?? 'wallet-local';
    const journalTable = `${prefix}-local-queues`;
    let dynamodb: DynamoDbLocal | undefined;
    let endpoint = options.dynamodbEndpoint;
    if (!endpoint) {
      progress(options.dataDir ? `starting DynamoDB Local (Java; data in ${join(options.dataDir, 'dynamodb')})` : 'starting DynamoDB Local (Java, in memory)');
      dynamodb = await startDynamoDbLocal({
        dataDir: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined,
        databases: [...localDatabases(prefix), localDatabaseOf(journalTable)],
      });
      stack.push(() => dynamodb!.stop());
      endpoint = dynamodb.endpoint;
    }

    progress('creating or checking the tables');
    const tables = await ensureTables(endpoint, prefix);

    progress('starting the development OIDC issuer');
    const issuer = await startDevIssuer({
      port: issuerPort,
      dataDir: options.dataDir,
      audience: LEDGER_AUDIENCE,
      clock: options.clock,
    });
    stack.push(() => issuer.close());

    // The wallet is a ledger consumer like any other: registered in LedgerTable by the platform
    // (the operator's step), with a client of the issuer for its client-credentials tokens.
    const walletClient = issuer.registerClient(WALLET_LEDGER_CLIENT);
    await ensureWalletConsumer(endpoint, tables.ledger.name);
    const journalClient = localSdkClient(endpoint, journalTable);
    stack.push(async () => journalClient.destroy());
    const journal = await dynamoQueueJournal(journalClient, journalTable);

    // The wallet's own token signing keys (KMS in AWS), and the dev issuer standing in for the
    // identity provider realm whose access tokens are wallet credentials (audience `wallet`).
    const { loadOrCreateSigningKeys } = await import('./signing-keys');
    const walletSigningKeys = await loadOrCreateSigningKeys(options.dataDir);

    // The console's dashboard app (dashboard/build.ts), built once into a temporary file its function reads.
    const dashboardApp = options.routes.some((route) => route.handler === 'platform/dashboard-app') ? await (await import('../dashboard/build')).writeDashboardApp() : undefined;
    if (dashboardApp) stack.push(async () => dashboardApp.remove());

    Object.assign(process.env, {
      WALLET_SIGNING_KEYS: JSON.stringify(walletSigningKeys),
      IDP_ISSUER: issuer.issuer,
      IDP_AUDIENCE: 'wallet',
      IDP_JWKS_URL: issuer.jwksUrl,
      LEDGER_API_URL: urls.ledger,
      LEDGER_TOKEN_URL: issuer.tokenUrl,
      LEDGER_CLIENT_ID: walletClient.client_id,
      LEDGER_CLIENT_SECRET: walletClient.client_secret,
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
      // The sandbox top-up processor POSTs its signed confirmations to the public gateway.
      WALLET_PUBLIC_URL: urls.public,
      // The dashboard on the console calls the wallet and auth APIs across origins: they answer that origin only (shared/http/cors.ts).
      DASHBOARD_ORIGIN: new URL(urls.console).origin,
      ...(dashboardApp ? { DASHBOARD_SCRIPT_FILE: dashboardApp.file } : {}),
      SANDBOX_PROCESSOR_SECRET: (await import('../shared/wallet/topups/sandbox-secret')).loadOrCreateSandboxSecret(options.dataDir),
      // Sandbox webhook receivers here listen on 127.0.0.1: loopback only unless the developer says
      // otherwise (`true` opens private networks, `false` closes loopback); AWS never sets it.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? 'loopback',
      // CloudWatch metrics (EMF lines on stdout) mean nothing here: none unless METRICS=stdout.
      METRICS: process.env.METRICS ?? 'off',
      ...options.env,
    });

    if (options.clock) {
      installPlatformClock(options.clock);
      stack.push(async () => installPlatformClock(undefined));
    }
    const load = (entry: string) => (options.handlerFor ?? loadHandler)(entry);
    // Sending works from the first request (a message kept from before the last stop waits until
    // the queue workers start); the transports are removed only after the gateways drained.
    const queues = new LocalQueues(options.queues, options.clock, undefined, journal);
    const recovered = await queues.load();
    installQueueTransport(queues);
    stack.push(async () => installQueueTransport(undefined));
    const events = new InMemoryEventBus();
    installEventBusTransport(events);
    stack.push(async () => installEventBusTransport(undefined));

    // The gateways listen before any worker starts: a message kept from before the last stop (a
    // sandbox confirmation, a webhook delivery) is sent to an API that answers. They close after
    // the workers stopped, the ledger last: what is in flight finishes (see drainGateways).
    progress('opening the gateways');
    const opened: LocalGateway[] = [];
    stack.push(() => drainGateways(opened));
    for (const name of Object.keys(gateways) as GatewayName[]) {
      // The reserved port is let go just before the gateway listens on it.
      await reserved.get(name)?.();
      opened.push(
        await startGateway({
          gateway: name,
          routes: options.routes,
          port: ports[name],
          handlerFor: (route) => load(route.handler) as Promise<LambdaHandler>,
          maxInFlightPerRoute: options.maxInFlightPerRoute ?? maxInFlightFromEnv(),
          throttle: throttles[name],
          clock: options.clock,
        }),
      );
    }

    progress(`starting the workers (${options.workers.length}: stream, queue and schedule)`);
    if (recovered > 0) log(`queues: ${recovered} message(s) kept from before the last stop, delivered now`);
    for (const worker of options.workers) {
      if (worker.trigger.kind !== 'queue') continue;
      queues.consume(worker.trigger.queue, {
        name: worker.name,
        handler: (await load(worker.handler)) as QueueHandler,
        batchSize: worker.trigger.batchSize,
        timeoutSeconds: worker.timeoutSeconds ?? WORKER_TIMEOUT_SECONDS,
      });
    }
    queues.start();
    stack.push(() => queues.stop());

    const streamWorkers = [];
    for (const worker of options.workers) {
      if (worker.trigger.kind !== 'stream') continue;
      streamWorkers.push({ name: worker.name, handler: (await load(worker.handler)) as StreamHandler, batchSize: worker.trigger.batchSize, filters: worker.trigger.filters, timeoutSeconds: worker.timeoutSeconds ?? WORKER_TIMEOUT_SECONDS });
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
        onNotice: (worker, message) => log(`stream worker ${worker}: ${message}`),
      });
      streams.start();
      const started = streams;
      stack.push(() => started.stop());
    }

    const scheduled = [];
    for (const worker of options.workers) {
      if (worker.trigger.kind !== 'schedule') continue;
      scheduled.push({ name: worker.name, handler: (await load(worker.handler)) as ScheduleHandler, rateMinutes: worker.trigger.rateMinutes, timeoutSeconds: worker.timeoutSeconds ?? WORKER_TIMEOUT_SECONDS });
    }
    const scheduler = new LocalScheduler(scheduled, (worker, error) => log(`scheduled worker ${worker} failed: ${String(error)}`));
    if (options.scheduleRates !== false) scheduler.start();
    stack.push(() => scheduler.stop());

    return { urls, issuer, dynamodbEndpoint: endpoint, tables, queues, events, streams, scheduler, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
