/**
 * `npm run bench:ledger`: 2-leg postings through the ledger's HTTP API on the embedded platform at
 * concurrency 1, 8 and 32 over distinct accounts, and a hot-account case (32 writers, distinct
 * sources, one destination). In the same run, the raw ceiling: TransactWriteItems with the same
 * item count sent straight to the same DynamoDB Local with the SDK at the same concurrency.
 * Prints postings/s, p50 and p99 and the ledger/raw ratio; writes JSON to bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { localDocumentClient } from '../local/dynamodb';
import { TransactWriteCommand } from '../shared/aws/dynamodb';
import { startPlatform } from '../local/platform';
import { uuidv7 } from '../shared/kernel/ids';
import { routes } from '../shared/routes';
import { queues, workers } from '../shared/workers';
import { clientCredentialsToken } from '../test/support/consumers';
import { createConsumerStore } from '../shared/ledger/consumers';
import { systemClock } from '../shared/kernel/clock';
import { measure, type Figures } from './measure';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = 1;
const timing = { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS };


const platform = await startPlatform({ ports: { public: 0, ledger: 0, console: 0 }, issuerPort: 0, routes, workers, queues, tablePrefix: `bench${Date.now()}`, env: { LOG_LEVEL: 'SILENT', VALIDATE_RESPONSES: 'false' } });
// The raw ceiling goes through the same document client as the Lambdas' (shared/aws/dynamodb.ts).
const document = localDocumentClient(platform.dynamodbEndpoint);
try {
  await createConsumerStore(document, platform.tables.ledger.name, systemClock, uuidv7).ensureConsumer({ name: 'bench', sub: 'bench' });
  const token = await clientCredentialsToken(platform, 'bench');
  const base = platform.urls.ledger;
  const api = async (method: string, path: string, body?: unknown, key?: string) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: JSON.parse(text) as { id: string } };
  };
  const ledgerId = (await api('POST', '/v1/ledgers', { name: 'bench', commodity: 'USD' })).json.id;
  const open = async (floor: number | null) => (await api('POST', `/v1/ledgers/${ledgerId}/accounts`, { owner_type: 'user', owner_id: uuidv7(), purpose: 'cash', commodity: 'USD', floor })).json.id;
  const sources = await Promise.all(Array.from({ length: 32 }, () => open(null)));
  const destinations = await Promise.all(Array.from({ length: 32 }, () => open(0)));
  const hot = await open(0);

  const post = (from: string, to: string) => async () => {
    const result = await api('POST', `/v1/ledgers/${ledgerId}/postings`, { type: 'transfer', legs: [{ account_id: from, direction: 'debit', amount: 1, commodity: 'USD' }, { account_id: to, direction: 'credit', amount: 1, commodity: 'USD' }] }, uuidv7());
    return result.status === 201;
  };

  // The raw ceiling: the same 7 writes a 2-leg posting makes (idempotency record, ledger period
  // check, transaction, 2 entries, 2 account updates), straight to DynamoDB with the SDK.
  const table = platform.tables.ledger.name;
  for (const id of [...sources, ...destinations, hot].map((_, i) => `RAW${i}`)) {
    await document.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { pk: `ACCOUNT#${id}`, sk: 'ACCOUNT', posted: 0, available: 0, headroom: 0, version: 0, status: 'active' } } }] }));
  }
  await document.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { pk: 'LEDGER#raw', sk: 'LEDGER' } } }] }));
  const rawPost = (from: string, to: string) => async () => {
    const txn = uuidv7();
    const update = (account: string, delta: number) => ({
      Update: {
        TableName: table,
        Key: { pk: `ACCOUNT#${account}`, sk: 'ACCOUNT' },
        UpdateExpression: 'SET updated_at = :now ADD posted :d, available :d, headroom :d, version :one',
        ConditionExpression: 'attribute_exists(pk) AND #status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':d': delta, ':one': 1, ':now': new Date().toISOString(), ':active': 'active' },
      },
    });
    await document.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { pk: `IDEM#raw#${txn}`, sk: 'IDEM', body: 'x'.repeat(600) }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { ConditionCheck: { TableName: table, Key: { pk: 'LEDGER#raw', sk: 'LEDGER' }, ConditionExpression: 'attribute_exists(pk)' } },
          { Put: { TableName: table, Item: { pk: `TXN#${txn}`, sk: 'TXN', gsi1pk: 'TXNS#raw', gsi1sk: txn, body: 'x'.repeat(600) }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: table, Item: { pk: `ACCOUNT#${from}`, sk: `ENTRY#${txn}#00`, amount: 1 } } },
          { Put: { TableName: table, Item: { pk: `ACCOUNT#${to}`, sk: `ENTRY#${txn}#01`, amount: 1 } } },
          update(from, -1),
          update(to, 1),
        ],
      }),
    );
    return true;
  };

  const results: { ledger: Figures; raw: Figures; ratio: number }[] = [];
  const run = async (name: string, concurrency: number, pair: (w: number) => [string, string], rawPair: (w: number) => [string, string]) => {
    const ledger = await measure(name, concurrency, (w) => post(...pair(w))(), timing);
    const rawFigures = await measure(`${name} (raw TransactWriteItems)`, concurrency, (w) => rawPost(...rawPair(w))(), timing);
    const ratio = Number((ledger.per_second / rawFigures.per_second).toFixed(2));
    results.push({ ledger, raw: rawFigures, ratio });
    console.log(
      `${name.padEnd(34)} c=${String(concurrency).padStart(2)}  ledger ${String(ledger.per_second).padStart(7)}/s p50 ${String(ledger.p50_ms).padStart(6)} ms p99 ${String(ledger.p99_ms).padStart(6)} ms errors ${ledger.errors}` +
        `   raw ${String(rawFigures.per_second).padStart(7)}/s p50 ${String(rawFigures.p50_ms).padStart(6)} ms p99 ${String(rawFigures.p99_ms).padStart(6)} ms   ratio ${ratio}`,
    );
  };

  console.log(`ledger benchmark: ${SECONDS}s per case after ${WARMUP_SECONDS}s warm-up, ${cpus().length} cores, Node ${process.version}`);
  for (const concurrency of [1, 8, 32]) {
    await run('spread (distinct accounts)', concurrency, (w) => [sources[w]!, destinations[w]!], (w) => [`RAW${w}`, `RAW${32 + w}`]);
  }
  await run('hot account (one destination)', 32, (w) => [sources[w]!, hot], (w) => [`RAW${w}`, 'RAW64']);

  const hotBalance = (await api('GET', `/v1/ledgers/${ledgerId}/accounts/${hot}`)).json as unknown as { balance: { posted: number } };
  const hotCase = results[3]!;
  const spread32 = results[2]!;
  const summary = {
    at: new Date().toISOString(),
    seconds_per_case: SECONDS,
    node: process.version,
    cores: cpus().length,
    results,
    checks: {
      ratio_at_32: spread32.ratio,
      ratio_target_met: spread32.ratio >= 0.7,
      hot_posted_equals_accepted: hotBalance.balance.posted === hotCase.ledger.warmup_accepted + hotCase.ledger.operations - hotCase.ledger.errors,
      hot_vs_spread: Number((hotCase.ledger.per_second / spread32.ledger.per_second).toFixed(2)),
    },
  };
  console.log(`ratio ledger/raw at c=32: ${summary.checks.ratio_at_32} (target >= 0.7); hot/spread throughput: ${summary.checks.hot_vs_spread} (target >= 0.5); hot account lost nothing: ${summary.checks.hot_posted_equals_accepted}`);
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `ledger-${summary.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`wrote ${file}`);
} finally {
  await platform.stop();
}
