/**
 * `npm run bench:ledger`: 2-leg postings through the ledger's HTTP API on the embedded platform at
 * concurrency 1, 8 and 32 over distinct accounts, and two hot-account cases (32 writers, distinct
 * sources, one destination): an account of one item, and a merchant settlement account spread
 * over 16 shards as the wallet opens it. In the same run, the raw ceiling: TransactWriteItems with
 * the same write set as the ledger's (shared/ledger/posting-plan.ts) sent straight to the same
 * DynamoDB Local through the same document client at the same concurrency. Prints postings/s, p50
 * and p99, the ledger/raw ratio and the no-loss checks; writes JSON to bench/results/.
 *
 * DynamoDB Local runs transactions one at a time, so locally shards cannot raise a hot account's
 * throughput; the hot cases show they cost nothing and lose nothing (docs/performance.md).
 */
import '../local/sdk-node-warning';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { localDocumentClient } from '../local/dynamodb';
import { TransactWriteCommand } from '../shared/aws/dynamodb';
import { startPlatform } from '../local/platform';
import { uuidv7 } from '../shared/kernel/ids';
import { shardOf } from '../shared/kernel/ids';
import { ledgerKeys, TRANSACTION_PARTITIONS } from '../shared/ledger/keys';
import { routes } from '../shared/routes';
import { queues, workers } from '../shared/workers';
import { clientCredentialsToken } from '../test/support/consumers';
import { createConsumerStore } from '../shared/ledger/consumers';
import { systemClock } from '../shared/kernel/clock';
import { benchSetting, cpuPerOp, measureInterleaved, ratioOf, ratioWithRounds, type Figures } from './measure';

const SECONDS = benchSetting('BENCH_SECONDS', 6);
const WARMUP_SECONDS = 2;
const ROUNDS = benchSetting('BENCH_ROUNDS', 3, { integer: true });
const timing = { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS };


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
  const hotShards = 16;
  const hotSharded = (await api('POST', `/v1/ledgers/${ledgerId}/accounts`, { owner_type: 'merchant', owner_id: uuidv7(), purpose: 'settlement', commodity: 'USD', floor: 0, shards: hotShards })).json.id;

  const post = (from: string, to: string) => async () => {
    const id = uuidv7();
    const result = await api(
      'POST',
      `/v1/ledgers/${ledgerId}/postings`,
      { type: 'transfer', reference_id: id, metadata: { transfer_id: id }, legs: [{ account_id: from, direction: 'debit', amount: 1, commodity: 'USD' }, { account_id: to, direction: 'credit', amount: 1, commodity: 'USD' }] },
      `transfer.create:${id}:post`,
    );
    return result.status === 201;
  };

  // The raw ceiling: the 6 writes a 2-leg posting makes, keyed by the ledger's own keys
  // (shared/ledger/keys.ts): idempotency record, transaction in one of its ledger's 16 partitions,
  // 2 entries, 2 account updates, of the sizes the ledger writes, straight to DynamoDB; for the
  // sharded case the credit's update and entry go to a shard.
  const table = platform.tables.ledger.name;
  const RAW_LEDGER = { id: 'raw', transaction_partitions: TRANSACTION_PARTITIONS, transaction_shards: undefined };
  const rawAccounts = Array.from({ length: 65 }, (_, i) => `RAW${i}`);
  for (const id of rawAccounts) {
    await document.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { ...ledgerKeys.account(id), ledger_id: 'raw', posted: 0, available: 0, headroom: 0, unbounded: true, version: 0, status: 'active' } } }] }));
  }
  for (let shard = 0; shard < hotShards; shard += 1) {
    await document.send(new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { ...ledgerKeys.accountShard('RAWHOT', shard), ledger_id: 'raw', posted: 0, pending_credits: 0, status: 'active' } } }] }));
  }
  const rawPost = (from: string, to: string, toShards?: number) => async () => {
    const txn = uuidv7();
    const now = new Date().toISOString();
    const update = (account: string, delta: number) => ({
      Update: {
        TableName: table,
        Key: ledgerKeys.account(account),
        UpdateExpression: 'SET updated_at = :now ADD posted :d, pending_debits :z, pending_credits :z, available :d, headroom :d, version :one',
        ConditionExpression: `attribute_exists(pk) AND ledger_id = :ledger AND #status = :active${delta < 0 ? ' AND (unbounded = :true OR headroom >= :need)' : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':d': delta, ':z': 0, ':one': 1, ':now': now, ':active': 'active', ':ledger': 'raw', ...(delta < 0 ? { ':true': true, ':need': -delta } : {}) },
      },
    });
    const shard = toShards === undefined ? undefined : shardOf(txn, toShards);
    const credit =
      shard === undefined
        ? update(to, 1)
        : {
            Update: {
              TableName: table,
              Key: ledgerKeys.accountShard(to, shard),
              UpdateExpression: 'SET updated_at = :now ADD posted :d, pending_credits :z',
              ConditionExpression: 'attribute_exists(pk) AND ledger_id = :ledger AND #status = :active',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':d': 1, ':z': 0, ':now': now, ':active': 'active', ':ledger': 'raw' },
            },
          };
    const entry = (account: string, index: number) => ({ ...ledgerKeys.entry(account, txn, index, index === 1 ? shard : undefined), entity: 'entry', transaction_id: txn, account_id: account, type: 'transfer', direction: index === 0 ? 'debit' : 'credit', amount: 1, commodity: 'USD', effective_at: now, created_at: now });
    await document.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { ...ledgerKeys.idempotency('raw', `transfer.create:${txn}:post`), entity: 'idempotency', operation: 'createPosting', fingerprint: 'f'.repeat(64), status_code: 201, ref: `transaction ${txn} raw`, created_at: now, expires_at_epoch: 0 }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: table, Item: { ...ledgerKeys.transaction(RAW_LEDGER, txn), entity: 'transaction', id: txn, ledger_id: 'raw', type: 'transfer', reference_id: txn, metadata: { transfer_id: txn }, legs: [`d|${from}|1|USD|user|${txn}|cash`, `c|${to}|1|USD|user|${txn}|cash`], effective_at: now, created_at: now }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: table, Item: entry(from, 0) } },
          { Put: { TableName: table, Item: entry(to, 1) } },
          update(from, -1),
          credit,
        ],
      }),
    );
    return true;
  };

  const results: { ledger: Figures; raw: Figures; ratio: number }[] = [];
  const run = async (name: string, concurrency: number, pair: (w: number) => [string, string], rawPair: (w: number) => [string, string], rawShards?: number) => {
    const [ledger, rawFigures] = (await measureInterleaved(
      [
        { name, operation: (w) => post(...pair(w))() },
        { name: `${name} (raw TransactWriteItems)`, operation: (w) => rawPost(...rawPair(w), rawShards)() },
      ],
      concurrency,
      timing,
    )) as [Figures, Figures];
    const ratio = ratioOf(ledger, rawFigures);
    results.push({ ledger, raw: rawFigures, ratio });
    console.log(
      `${name.padEnd(34)} c=${String(concurrency).padStart(2)}  ledger ${String(ledger.per_second).padStart(7)}/s p50 ${String(ledger.p50_ms).padStart(6)} ms p99 ${String(ledger.p99_ms).padStart(6)} ms errors ${ledger.errors} (${cpuPerOp(ledger)})` +
        `   raw ${String(rawFigures.per_second).padStart(7)}/s p50 ${String(rawFigures.p50_ms).padStart(6)} ms p99 ${String(rawFigures.p99_ms).padStart(6)} ms (${cpuPerOp(rawFigures)})   ratio ${ratioWithRounds(ledger, rawFigures)}`,
    );
  };

  console.log(`ledger benchmark: ${SECONDS}s per case in ${ROUNDS} interleaved rounds after ${WARMUP_SECONDS}s warm-up each, ${cpus().length} cores, Node ${process.version}`);
  for (const concurrency of [1, 8, 32]) {
    await run('spread (distinct accounts)', concurrency, (w) => [sources[w]!, destinations[w]!], (w) => [`RAW${w}`, `RAW${32 + w}`]);
  }
  await run('hot account (one item)', 32, (w) => [sources[w]!, hot], (w) => [`RAW${w}`, 'RAW64']);
  await run(`hot account (${hotShards} shards)`, 32, (w) => [sources[w]!, hotSharded], (w) => [`RAW${w}`, 'RAWHOT'], hotShards);

  // No loss: every accepted posting (warm-up included) is in the balance, and the history.
  const balanceOf = async (id: string) => ((await api('GET', `/v1/ledgers/${ledgerId}/accounts/${id}`)).json as unknown as { balance: { posted: number } }).balance.posted;
  const accepted = (figures: Figures) => figures.warmup_accepted + figures.operations - figures.errors;
  const entriesOf = async (id: string) => {
    let count = 0;
    let cursor: string | null = null;
    do {
      const page = (await api('GET', `/v1/ledgers/${ledgerId}/accounts/${id}/entries?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json as unknown as { data: unknown[]; next_cursor: string | null };
      count += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    return count;
  };
  const [hotCase, shardedCase, spread32] = [results[3]!, results[4]!, results[2]!];
  const shardedBalance = await balanceOf(hotSharded);
  const rollup = (await api('GET', `/v1/ledgers/${ledgerId}/rollup`)).json as unknown as { balanced: boolean };
  const summary = {
    at: new Date().toISOString(),
    seconds_per_case: SECONDS,
    rounds: ROUNDS,
    node: process.version,
    cores: cpus().length,
    results,
    checks: {
      ratio_at_32: spread32.ratio,
      ratio_target_met: spread32.ratio >= 0.8,
      hot_posted_equals_accepted: (await balanceOf(hot)) === accepted(hotCase.ledger),
      sharded_posted_equals_accepted: shardedBalance === accepted(shardedCase.ledger),
      sharded_entries_equal_accepted: (await entriesOf(hotSharded)) === accepted(shardedCase.ledger),
      rollup_balanced: rollup.balanced,
      hot_vs_spread: Number((hotCase.ledger.per_second / spread32.ledger.per_second).toFixed(2)),
      sharded_vs_spread: Number((shardedCase.ledger.per_second / spread32.ledger.per_second).toFixed(2)),
    },
  };
  const c = summary.checks;
  console.log(`ratio ledger/raw at c=32: ${c.ratio_at_32} (target >= 0.8); hot/spread: ${c.hot_vs_spread}, sharded hot/spread: ${c.sharded_vs_spread}`);
  console.log(
    `no loss: one-item hot balance = accepted ${c.hot_posted_equals_accepted}; sharded balance ${shardedBalance} = accepted ${c.sharded_posted_equals_accepted}, entries = accepted ${c.sharded_entries_equal_accepted}; rollup balanced ${c.rollup_balanced}`,
  );
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `ledger-${summary.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`wrote ${file}`);
} finally {
  await platform.stop();
}
