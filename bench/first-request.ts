/**
 * `npm run bench:first-request`: what a cold function costs a user, init and first request
 * together, for a few representative functions. Bench:cold times only the import (Lambda's init);
 * a user waits for the init and the first request, and work moved from the one to the other only
 * moves the wait. For each function: a fresh Node.js process imports its bundle (scripts/bundle.ts),
 * then invokes its handler once with the event AWS would deliver (an API Gateway proxy event with a
 * wallet user token, or a scheduled event), against DynamoDB Local; the CPU of the import and of
 * the first invocation are read around each, medians over BENCH_RUNS processes (default 5), the
 * functions interleaved. The answers are realistic but small: a transfer that does not exist
 * (404 after the token check, the route's validation and a `GetItem`), a user the tenant does not
 * have (404 after the same and a read), the payment holds' expiry with none due (a `Query`), the
 * shard sweep over a ledger without sharded accounts.
 *
 * `BENCH_FUNCTIONS=transfers/get-transfer,...` picks the functions (names from FUNCTIONS below).
 * `BENCH_BUNDLES=<dist>,<dist>` times bundles already built (`npm run build` of two trees, say)
 * instead of this tree's, interleaved with each other: a change compared with the tree before it.
 */
import '../local/sdk-node-warning';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDbLocal } from '../local/dynamodb';
import { generateSigningKey } from '../local/signing-keys';
import { ensureTables, localDatabases } from '../local/tables';
import { bundle, repoRoot } from '../scripts/bundle';
import { importingNode, median, round } from '../scripts/cold-imports';
import { benchSetting } from './measure';

const run = promisify(execFile);
const runs = benchSetting('BENCH_RUNS', 5, { integer: true });
// BENCH_NODE is checked (and a major fetched) before anything is built.
const { version: nodeVersion } = importingNode();

interface Subject {
  handler: string;
  /** The event of the first invocation. */
  event(token: string): unknown;
}

const TENANT = '01900000-0000-7000-8000-000000000001';
const USER = '01900000-0000-7000-8000-000000000002';

function apiEvent(method: string, path: string, resource: string, pathParameters: Record<string, string> | null, token: string): unknown {
  return {
    httpMethod: method,
    path,
    resource,
    pathParameters,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    headers: { authorization: `Bearer ${token}`, host: 'api.example.com', 'x-forwarded-proto': 'https' },
    multiValueHeaders: {},
    body: null,
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: { requestId: '01900000-0000-7000-8000-00000000aaaa', stage: 'prod', httpMethod: method, path, resourcePath: resource },
  };
}

const scheduled = () => ({ 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {}, time: new Date().toISOString() });

const FUNCTIONS: readonly Subject[] = [
  {
    handler: 'transfers/get-transfer',
    event: (token) => apiEvent('GET', '/v1/transfers/01900000-0000-7000-8000-0000000000ff', '/v1/transfers/{transferId}', { transferId: '01900000-0000-7000-8000-0000000000ff' }, token),
  },
  { handler: 'tenancy/get-user', event: (token) => apiEvent('GET', `/v1/users/${USER}`, '/v1/users/{userId}', { userId: USER }, token) },
  { handler: 'payments/expire-holds', event: scheduled },
  { handler: 'ledger/sweep-shards', event: scheduled },
];

/** Run in the child: import argv[1], invoke its handler once with EVENT, print the CPU of each. */
const PROBE = [
  "const context = { functionName: 'bench', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:bench', memoryLimitInMB: '1024', awsRequestId: 'bench', logGroupName: 'bench', logStreamName: 'bench', getRemainingTimeInMillis: () => 30000, callbackWaitsForEmptyEventLoop: false };",
  'const c0 = process.cpuUsage(); const t0 = performance.now();',
  'const module = await import(process.argv[1]);',
  'const c1 = process.cpuUsage(c0); const t1 = performance.now();',
  'const result = await module.handler(JSON.parse(process.env.BENCH_EVENT), context);',
  'const c2 = process.cpuUsage(c0);',
  'const status = result?.statusCode ? `${result.statusCode}${result.statusCode >= 400 ? " " + JSON.parse(result.body).code : ""}` : JSON.stringify(result);',
  "process.stderr.write('\\nBENCH ' + JSON.stringify({ importCpu: (c1.user + c1.system) / 1000, firstCpu: (c2.user + c2.system - c1.user - c1.system) / 1000, importWall: t1 - t0, firstWall: performance.now() - t1, status }) + '\\n');",
  'process.exit(0);',
].join('\n');

const only = (process.env.BENCH_FUNCTIONS ?? '').split(',').map((name) => name.trim()).filter(Boolean);
const subjects = FUNCTIONS.filter((subject) => only.length === 0 || only.includes(subject.handler));
if (subjects.length === 0) throw new Error(`BENCH_FUNCTIONS=${process.env.BENCH_FUNCTIONS}: none of ${FUNCTIONS.map((s) => s.handler).join(', ')}`);

const outdir = mkdtempSync(join(tmpdir(), 'bench-first-'));
const prefix = 'bench-first';
const dynamodb = await startDynamoDbLocal({ databases: localDatabases(prefix) });
try {
  const tables = await ensureTables(dynamodb.endpoint, prefix);
  const signingKeys = JSON.stringify({ current: await generateSigningKey() });
  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    GATEWAY_NAME: 'public',
    STAGE: 'local',
    DYNAMODB_ENDPOINT: dynamodb.endpoint,
    WALLET_TABLE: tables.wallet.name,
    LEDGER_TABLE: tables.ledger.name,
    WALLET_SIGNING_KEYS: signingKeys,
    METRICS: 'stdout',
    LOG_LEVEL: 'INFO',
  };
  // A user token of the kind a client sends (minted with the same key the functions verify with).
  process.env.WALLET_SIGNING_KEYS = signingKeys;
  const { createLocalSigner, mintWalletToken, parseSigningKeys } = await import('../shared/wallet/auth/tokens');
  const { TENANT_SCOPES } = await import('../shared/wallet/auth/scopes');
  const signer = await createLocalSigner(parseSigningKeys(signingKeys));
  const { token } = await mintWalletToken(signer, { use: 'user', subject: USER, scopes: [...TENANT_SCOPES], ttlSeconds: 3600, claims: { tenant_id: TENANT, env: 'live' } });

  const dists = (process.env.BENCH_BUNDLES ?? '').split(',').filter(Boolean);
  if (dists.length === 0) await bundle({ outdir, entries: subjects.map((subject) => subject.handler) });
  const builds = dists.length > 0 ? dists : [outdir];
  const cases = builds.flatMap((dist) => subjects.map((subject) => ({ dist, subject, name: dists.length > 1 ? `${subject.handler} (${dist})` : subject.handler })));
  const samples = new Map(cases.map((c) => [c.name, [] as { importCpu: number; firstCpu: number; importWall: number; firstWall: number; status: unknown }[]]));
  const loads: number[] = [];
  for (let round = 0; round < runs; round += 1) {
    for (const { dist, subject, name } of cases) {
      const file = pathToFileURL(join(dist, subject.handler, 'index.mjs')).href;
      const { stderr } = await run(importingNode().path, ['--input-type=module', '-e', PROBE, file], { env: { ...env, BENCH_EVENT: JSON.stringify(subject.event(token)) }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
      const line = stderr.split('\n').find((text) => text.startsWith('BENCH '));
      if (!line) throw new Error(`${subject.handler}: no figures\n${stderr}`);
      samples.get(name)!.push(JSON.parse(line.slice('BENCH '.length)));
    }
    loads.push(loadavg()[0]!);
  }

  const width = Math.max(...cases.map((c) => c.name.length));
  console.log(`${'function'.padEnd(width)}  ${'import'.padStart(7)}  ${'first'.padStart(7)}  ${'both'.padStart(7)}  answer   (ms of CPU, medians of ${runs})`);
  const rows = cases.map(({ name }) => {
    const list = samples.get(name)!;
    const pick = (key: 'importCpu' | 'firstCpu' | 'importWall' | 'firstWall') => round(median(list.map((sample) => sample[key])));
    const both = round(median(list.map((sample) => sample.importCpu + sample.firstCpu)));
    const row = { handler: name, importCpuMs: pick('importCpu'), firstCpuMs: pick('firstCpu'), bothCpuMs: both, importWallMs: pick('importWall'), firstWallMs: pick('firstWall'), answers: [...new Set(list.map((sample) => sample.status))] };
    console.log(`${name.padEnd(width)}  ${String(row.importCpuMs).padStart(7)}  ${String(row.firstCpuMs).padStart(7)}  ${String(row.bothCpuMs).padStart(7)}  ${row.answers.join(',')}`);
    return row;
  });
  const load = `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
  console.log(`\n${cpus().length} CPUs, Node ${nodeVersion}, 1-minute load average ${load} during the run`);
  const dir = join(repoRoot, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `first-request-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: { cpus: cpus().length, node: nodeVersion, load }, runs, rows }, null, 2)}\n`);
  console.log(`-> ${file}`);
} finally {
  await dynamodb.stop();
  rmSync(outdir, { recursive: true, force: true });
}
