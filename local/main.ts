import './sdk-node-warning';
import { parseArgs } from 'node:util';
import { gateways, type GatewayName } from '../shared/http/gateways';
import { OIDC_DEFAULT_PORT } from './ports';
import type { Platform } from './platform';

/**
 * `npm start`: the whole platform on this machine, no Docker, no AWS account. Data lives in .data/
 * (git-ignored) and survives restarts; Ctrl-C stops everything, DynamoDB Local's JVM included.
 */

const USAGE = [
  'usage: npm start [-- --help]',
  'Starts the whole platform on this machine (DynamoDB Local on Java 17+, the gateways, the workers).',
  'Environment:',
  ...[
    ['DATA_DIR', 'the data folder (default .data); one platform per folder'],
    ...Object.values(gateways).map((gateway) => [gateway.localPortEnv, `${gateway.description} (default ${gateway.localPort})`]),
    ['OIDC_PORT', `development OIDC issuer (default ${OIDC_DEFAULT_PORT})`],
    ['LOG_LEVEL', 'WARN by default; info prints one line per request'],
    ['METRICS', 'off by default; stdout prints the CloudWatch EMF metric lines (docs/runbook.md)'],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'loopback (default), true or false: where sandbox webhooks may go'],
    ['PAYMENT_HOLD_SECONDS', 'how long an authorized payment holds the money before it expires (default 604800, 7 days)'],
    ['ORDER_HOLD_SECONDS', 'how long an unpaid order holds its stock (default 900)'],
    ['METRICS', 'off (default here) or stdout: CloudWatch EMF metric lines'],
    ['GATEWAY_MAX_IN_FLIGHT', 'requests in flight per route before 503 (default 256)'],
    ...Object.values(gateways)
      .filter((gateway) => gateway.localThrottleEnv)
      .map((gateway) => [
        gateway.localThrottleEnv,
        `${gateway.description.split(' (')[0]}: <rate>/<burst> per method and credential before 429, or off (default ${gateway.throttle ? `${gateway.throttle.rateLimit}/${gateway.throttle.burstLimit}, the AWS stage's` : 'off'})`,
      ]),
  ].map(([name, meaning]) => `  ${name!.padEnd(30)} ${meaning}`),
  'npm run reset -- --yes wipes the data folder (the platform must be stopped).',
  'The first start seeds a platform operator, a demo tenant with a sandbox API key and its partner',
  'administrator (console API), saved in <DATA_DIR>/bootstrap.json.',
].join('\n');

try {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
} catch (error) {
  console.error(`error: ${(error as Error).message} (npm start -- --help shows the options)`);
  process.exit(2);
}

// Request logs are for debugging; a developer's terminal shows the banner and warnings.
process.env.LOG_LEVEL ??= 'WARN';

// Loaded after --help: the manifest and the platform are most of the start's module loading.
const { mkdirSync, writeFileSync } = await import('node:fs');
const { routes } = await import('../shared/routes');
const { queues, workers } = await import('../shared/workers');
const { bootstrapFileOf, dataDirFromEnv, lockDataDir, stateFileOf } = await import('./data-dir');
const { LocalStartError } = await import('./errors');
const { startPlatform } = await import('./platform');
const { seedOnFirstStart } = await import('./seed');

const dataDir = dataDirFromEnv();
/** Where scripts (dev:token, ledger:consumers) find the running platform without flags. */
const stateFile = stateFileOf(dataDir);

let platform: Platform | undefined;
let stopping = false;

async function stopAndExit(): Promise<never> {
  await platform?.stop();
  console.log('stopped.');
  process.exit(0);
}

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the embedded platform...`);
  // Still starting: the start stops it as soon as startPlatform has given it back (below).
  if (platform) await stopAndExit();
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  const started = Date.now();
  mkdirSync(dataDir, { recursive: true });
  // Given back when this process exits, however it exits (local/data-dir.ts).
  lockDataDir(dataDir);
  console.log(`Starting the embedded platform (data in ${dataDir})`);
  platform = await startPlatform({
    dataDir,
    routes,
    workers,
    queues,
    log: (line) => console.error(line),
    progress: (step) => console.log(`  ... ${step}`),
  });
  if (stopping) await stopAndExit();
  console.log(`  ... seeding (first start only)`);
  const { bootstrap, created } = await seedOnFirstStart(platform, dataDir);
  writeFileSync(
    stateFile,
    JSON.stringify(
      { pid: process.pid, urls: platform.urls, oidc_issuer: platform.issuer.issuer, dynamodb_endpoint: platform.dynamodbEndpoint, tables: platform.tables },
      null,
      2,
    ),
  );
  const count = (name: GatewayName) => routes.filter((r) => gateways[name].apis.includes(r.api)).length;
  console.log(`Wallet platform (embedded) is up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const names = Object.keys(gateways) as GatewayName[];
  const urls = platform.urls;
  // One column for the addresses, as wide as the longest label (the data folder goes after its address).
  const rows: [string, string][] = [
    ...names.map((name): [string, string] => [gateways[name].description, `${urls[name]}  (${count(name)} routes)`]),
    ['Development OIDC issuer (ledger consumer tokens)', platform.issuer.issuer],
    ['DynamoDB Local', `${platform.dynamodbEndpoint}  (data in ${dataDir}/dynamodb)`],
    ['Workers: stream / queue / schedule', ['stream', 'queue', 'schedule'].map((k) => workers.filter((w) => w.trigger.kind === k).length).join(' / ')],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
  console.log('API reference in a browser (offline):');
  for (const name of names) console.log(`  ${gateways[name].description.padEnd(width)}  ${urls[name]}/docs`);
  console.log(`Dashboard (sign in with a staff account, e.g. the platform staff below):  ${urls.console}/dashboard`);
  const saved = bootstrapFileOf(dataDir);
  console.log(created ? `Seeded on first start (saved in ${saved}):` : `Credentials from the first start (${saved}):`);
  console.log(`  platform staff   ${bootstrap.platform_staff.email}  password ${bootstrap.platform_staff.password}`);
  console.log(`  demo tenant      ${bootstrap.demo_tenant.name} (${bootstrap.demo_tenant.currency}) ${bootstrap.demo_tenant.id}`);
  console.log(`  sandbox API key  ${bootstrap.demo_tenant.api_key}`);
  console.log(`  partner admin    ${bootstrap.partner_admin.email}  password ${bootstrap.partner_admin.password}  (the demo tenant's, for the console API)`);
  console.log(`In another terminal, eval "$(npm run --silent dev:env)" sets WALLET_URL, API_KEY and the rest for the README's examples.`);
  console.log(`Try: curl -H "Authorization: Bearer ${bootstrap.demo_tenant.api_key}" ${platform.urls.public}/v1/users    Ctrl-C stops everything.`);
} catch (error) {
  if (error instanceof LocalStartError) {
    console.error(`error: ${error.message}`);
  } else {
    console.error('error: the embedded platform failed to start:', error);
  }
  await platform?.stop().catch(() => undefined);
  process.exit(1);
}
