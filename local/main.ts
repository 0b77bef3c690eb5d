import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gateways, type GatewayName } from '../shared/http/gateways';
import { routes } from '../shared/routes';
import { queues, workers } from '../shared/workers';
import { LocalStartError } from './errors';
import { startPlatform, type Platform } from './platform';
import { seedOnFirstStart } from './seed';

/**
 * `npm start`: the whole platform on this machine, no Docker, no AWS account. Data lives in .data/
 * (git-ignored) and survives restarts; Ctrl-C stops everything, DynamoDB Local's JVM included.
 */
const dataDir = resolve(process.env.DATA_DIR ?? resolve(import.meta.dirname, '..', '.data'));
mkdirSync(dataDir, { recursive: true });
/** Where scripts (dev:token, ledger:consumers) find the running platform without flags. */
const stateFile = resolve(dataDir, 'platform.json');

let platform: Platform | undefined;
let stopping = false;

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the embedded platform...`);
  await platform?.stop();
  rmSync(stateFile, { force: true });
  console.log('stopped.');
  process.exit(0);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  const started = Date.now();
  platform = await startPlatform({
    dataDir,
    routes,
    workers,
    queues,
    log: (line) => console.error(line),
  });
  if (stopping) await platform.stop();
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
  for (const name of Object.keys(gateways) as GatewayName[]) {
    console.log(`  ${gateways[name].description.padEnd(58)} ${platform.urls[name]}  (${count(name)} routes)`);
  }
  console.log(`  ${'Development OIDC issuer (ledger consumer tokens)'.padEnd(58)} ${platform.issuer.issuer}`);
  console.log(`  ${`DynamoDB Local (data in ${dataDir}/dynamodb)`.padEnd(58)} ${platform.dynamodbEndpoint}`);
  console.log(`  ${'Workers: stream / queue / schedule'.padEnd(58)} ${['stream', 'queue', 'schedule'].map((k) => workers.filter((w) => w.trigger.kind === k).length).join(' / ')}`);
  const { bootstrap, created } = await seedOnFirstStart(platform, dataDir);
  const saved = resolve(dataDir, 'bootstrap.json');
  console.log(created ? `Seeded on first start (saved in ${saved}):` : `Credentials from the first start (${saved}):`);
  console.log(`  platform staff   ${bootstrap.platform_staff.email}  password ${bootstrap.platform_staff.password}`);
  console.log(`  demo tenant      ${bootstrap.demo_tenant.name} (${bootstrap.demo_tenant.currency}) ${bootstrap.demo_tenant.id}`);
  console.log(`  sandbox API key  ${bootstrap.demo_tenant.api_key}`);
  console.log(`Try: curl -H "Authorization: Bearer ${bootstrap.demo_tenant.api_key}" ${platform.urls.public}/v1/users    Ctrl-C stops everything.`);
} catch (error) {
  if (error instanceof LocalStartError) {
    console.error(`error: ${error.message}`);
  } else {
    console.error('error: the embedded platform failed to start:', error);
  }
  process.exit(1);
}
