/**
 * `npm run bench:wallet`: P2P transfers through the wallet API on the embedded platform at
 * concurrency 1, 8 and 32 (distinct senders and receivers per writer), with a p2p fee (three legs:
 * every transfer also credits the tenant's one revenue account) and without one (two legs). In the
 * same run, the ledger-only rate of the same postings: through the ledger API with the wallet's own
 * ledger credentials, 2-leg ones between the same kind of accounts and 3-leg ones that also credit
 * the fee tenant's revenue account, so the wallet's overhead is a ratio, each transfer against the
 * posting it makes (a fee transfer against a 3-leg posting). Then the
 * DynamoDB capacity one transfer consumes, summed over both tables from ReturnConsumedCapacity
 * (the in-process wallet and ledger document clients are wrapped). Prints transfers/s, p50 and
 * p99; writes JSON to bench/results/.
 */
import '../local/sdk-node-warning';
import { benchSetting, benchSettingList, cpuPerOp, measureInterleaved, ratioOf, ratioWithRounds, type Figures } from './measure';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { localDocumentClient } from '../local/dynamodb';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DocumentClient, type DocumentCommand } from '../shared/aws/dynamodb';
import { startPlatform } from '../local/platform';
import { TENANT_SCOPES } from '../shared/wallet/auth/scopes';
import { systemClock } from '../shared/kernel/clock';
import type { AnyRoute } from '../shared/http/route';
import { uuidv7 } from '../shared/kernel/ids';
import { LedgerClient } from '../shared/ledger-client/client';
import { httpSend } from '../shared/http/outbound';
import { routes } from '../shared/routes';
import { ledgerTable, walletTable, type TableDefinition } from '../shared/tables';
import { transferRoutes } from '../shared/wallet/transfers/routes';
import { queues, workers } from '../shared/workers';
import { apiKeyFor, staffToken } from '../test/support/credentials';
import { ZERO_RULE, type FeeRule } from '../shared/wallet/tenancy/fees';
import { transferAmounts, transferLegs } from '../shared/wallet/transfers/transfers';

const SECONDS = benchSetting('BENCH_SECONDS', 6);
const WARMUP_SECONDS = 2;
const ROUNDS = benchSetting('BENCH_ROUNDS', 3, { integer: true });
const timing = { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, rounds: ROUNDS };
const WRITERS = 32;
const CAPACITY_SAMPLE = 20;
/** The concurrencies measured (BENCH_CONCURRENCY=8,32; empty: only the capacity sample). */
const CONCURRENCIES = benchSettingList('BENCH_CONCURRENCY', [1, 8, 32]);


/** Approximate DynamoDB item size (names plus values, its sizing rules), in bytes. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').replace(/^0+/, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, v) => sum + sizeOf(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + sizeOf(v), 0);
  return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + 1 + sizeOf(v), 0);
}
const itemSize = (item: Record<string, unknown>) => Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + sizeOf(v), 0);
const kb = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

type Key = Record<string, unknown>;
interface WriteAction {
  kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck';
  table: string;
  item?: Record<string, unknown>;
  key?: Key;
  update?: string;
  /** What a put replaced, read before it. */
  replaced?: Record<string, unknown>;
}

/**
 * Capacity per operation, two ways. `reported`: what DynamoDB Local answers to
 * ReturnConsumedCapacity; for TransactWriteItems it reports 2 units per table (plus 2 per touched
 * index) whatever the number of items, so it undercounts transactions. `modelled`: AWS's on-demand
 * pricing applied to what each call wrote: 1 unit per KB for a standard write, 2 per KB for every
 * item of a transaction (ConditionCheck included), 1 per KB per index entry written or removed;
 * item sizes are the written (post-)images, read back after the call with an unmetered client.
 */
class CapacityMeter {
  readonly reported = new Map<string, { write: number; read: number; calls: number }>();
  readonly modelled = new Map<string, { write: number; items: number; calls: number }>();

  constructor(
    private readonly reader: DocumentClient,
    private readonly definitions: Record<string, TableDefinition>,
  ) {}

  wrap(client: DocumentClient, label: string): void {
    const send = client.send.bind(client);
    (client as { send: DocumentClient['send'] }).send = (async (call: DocumentCommand) => {
        const input = call.input as Record<string, unknown>;
        input.ReturnConsumedCapacity = 'TOTAL';
        const command = operationOf(call);
        const actions = writeActions(command, input);
        // A put replaces what was there: the item it replaces leaves the indexes the new one is not in.
        for (const action of actions) {
          if (action.kind === 'Put' && action.item) action.replaced = (await this.reader.send(new GetCommand({ TableName: action.table, Key: { pk: action.item.pk, sk: action.item.sk }, ConsistentRead: true }))).Item;
        }
        const result = await send(call);
        const consumed = (result as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
        for (const entry of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
          const key = `${label} ${this.tableOf(entry.TableName)} ${command}`;
          const row = this.reported.get(key) ?? { write: 0, read: 0, calls: 0 };
          const total = entry.CapacityUnits ?? 0;
          const write = entry.WriteCapacityUnits ?? (actions.length > 0 ? total : 0);
          row.write += write;
          row.read += entry.ReadCapacityUnits ?? total - write;
          row.calls += 1;
          this.reported.set(key, row);
        }
        if (actions.length > 0) await this.model(label, command, actions);
        return result;
    }) as DocumentClient['send'];
  }

  private tableOf(name: string | undefined): string {
    return Object.entries(this.definitions).find(([local]) => local === name)?.[1].logicalId ?? name ?? '?';
  }

  private async model(label: string, command: string, actions: WriteAction[]) {
    const transactional = command === 'TransactWriteItems' || command === 'TransactWrite';
    for (const action of actions) {
      const definition = this.definitions[action.table];
      const image = action.item ?? (action.key ? (await this.reader.send(new GetCommand({ TableName: action.table, Key: action.key, ConsistentRead: true }))).Item : undefined) ?? action.key ?? {};
      let units = (transactional ? 2 : 1) * kb(itemSize(image));
      if (action.kind !== 'ConditionCheck' && definition) {
        for (const index of definition.indexes) {
          const inIndex = image[index.partitionKey] !== undefined;
          const left = action.replaced?.[index.partitionKey] !== undefined && !inIndex;
          const removed = left || (action.update !== undefined && new RegExp(`REMOVE[^=]*\\b${index.partitionKey}\\b`).test(action.update));
          // KEYS_ONLY entries change only when the item enters or leaves the index (keys here never move).
          const written = action.kind === 'Put' ? inIndex : inIndex && index.projection === 'ALL';
          if (written) units += index.projection === 'ALL' ? kb(itemSize(image)) : 1;
          if (removed) units += 1;
        }
      }
      const key = `${label} ${definition?.logicalId ?? action.table} ${command} ${action.kind}`;
      const row = this.modelled.get(key) ?? { write: 0, items: 0, calls: 0 };
      row.write += units;
      row.items += 1;
      this.modelled.set(key, row);
    }
  }

  reset(): void {
    this.reported.clear();
    this.modelled.clear();
  }

  /** Units per operation after `operations` of them. */
  per(operations: number) {
    const round = (n: number) => Number((n / operations).toFixed(2));
    const reported = [...this.reported.entries()].map(([call, row]) => ({ call, calls: round(row.calls), write_units: round(row.write), read_units: round(row.read) }));
    const modelled = [...this.modelled.entries()].map(([call, row]) => ({ call, items: round(row.items), write_units: round(row.write) }));
    const sum = <T>(rows: T[], pick: (r: T) => number) => Number(rows.reduce((total, r) => total + pick(r), 0).toFixed(2));
    return {
      modelled_write_units: sum(modelled, (r) => r.write_units),
      reported_write_units: sum(reported, (r) => r.write_units),
      reported_read_units: sum(reported, (r) => r.read_units),
      modelled,
      reported,
    };
  }
}

/** The DynamoDB operation a document command sends. */
function operationOf(call: DocumentCommand): string {
  if (call instanceof GetCommand) return 'GetItem';
  if (call instanceof PutCommand) return 'PutItem';
  if (call instanceof UpdateCommand) return 'UpdateItem';
  if (call instanceof QueryCommand) return 'Query';
  if (call instanceof BatchGetCommand) return 'BatchGetItem';
  if (call instanceof BatchWriteCommand) return 'BatchWriteItem';
  if (call instanceof TransactWriteCommand) return 'TransactWriteItems';
  return 'Unknown';
}

function writeActions(command: string, input: Record<string, unknown>): WriteAction[] {
  const table = String(input.TableName ?? '');
  switch (command) {
    case 'Put':
    case 'PutItem':
      return [{ kind: 'Put', table, item: input.Item as Record<string, unknown> }];
    case 'Update':
    case 'UpdateItem':
      return [{ kind: 'Update', table, key: input.Key as Key, update: String(input.UpdateExpression ?? '') }];
    case 'Delete':
    case 'DeleteItem':
      return [{ kind: 'Delete', table, key: input.Key as Key }];
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems as Record<string, { PutRequest?: { Item: Record<string, unknown> }; DeleteRequest?: { Key: Key } }[]>).flatMap(([name, writes]) =>
        writes.map((write): WriteAction => (write.PutRequest ? { kind: 'Put', table: name, item: write.PutRequest.Item } : { kind: 'Delete', table: name, key: write.DeleteRequest!.Key })),
      );
    case 'TransactWrite':
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, Record<string, unknown>>[]).map((entry) => {
        const [kind, action] = Object.entries(entry)[0] as [WriteAction['kind'], Record<string, unknown>];
        return { kind, table: String(action.TableName), item: action.Item as Record<string, unknown> | undefined, key: action.Key as Key | undefined, update: action.UpdateExpression as string | undefined };
      });
    default:
      return [];
  }
}

interface Capacity {
  TableName?: string;
  CapacityUnits?: number;
  WriteCapacityUnits?: number;
  ReadCapacityUnits?: number;
}

function withTransfers(): AnyRoute[] {
  const all = new Map<string, AnyRoute>();
  for (const route of [...routes, ...Object.values(transferRoutes)] as AnyRoute[]) if (!all.has(route.operationId)) all.set(route.operationId, route);
  return [...all.values()];
}

const platform = await startPlatform({
  ports: { public: 0, ledger: 0, console: 0 },
  issuerPort: 0,
  routes: withTransfers(),
  workers,
  queues,
  tablePrefix: `bench${Date.now()}`,
  env: { LOG_LEVEL: 'SILENT', VALIDATE_RESPONSES: 'false' },
  // It measures the platform, not the stage's throttle (100 rps per method and key would cap it).
  throttle: { public: null, console: null },
});
try {
  // Loaded after the platform set the environment: both read their configuration at first import.
  const { walletRuntime } = await import('../shared/runtime/wallet');
  const { ledgerRuntime } = await import('../shared/runtime/ledger');
  const { getTenantRecord } = await import('../shared/wallet/tenancy/tenants');
  const { getUserRecord } = await import('../shared/wallet/tenancy/users');
  const wallet = walletRuntime();
  const ledger = new LedgerClient({ baseUrl: platform.urls.ledger, tokenUrl: process.env.LEDGER_TOKEN_URL!, clientId: process.env.LEDGER_CLIENT_ID!, clientSecret: process.env.LEDGER_CLIENT_SECRET!, clock: systemClock });

  // Through the HTTP transport the ledger postings go through (the LedgerClient's), so the two
  // cases of a ratio pay the same for the load generator's own requests.
  const post = async (path: string, token: string, body: unknown, key?: string) => {
    const response = await httpSend({
      method: path === '/v1/fee_plan' ? 'PUT' : 'POST',
      url: `${platform.urls.public}${path}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
      timeoutMs: 30_000,
    });
    return { status: response.status, json: JSON.parse(response.text) as Record<string, any> };
  };

  const staff = await staffToken(platform, { role: 'platform' });
  /** A tenant with WRITERS senders (funded) and WRITERS receivers, and its API key. */
  const setUp = async (name: string, p2p?: unknown) => {
    const tenantId = (await post('/v1/tenants', staff, { name, currency: 'USD' }, uuidv7())).json.id as string;
    const key = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
    if (p2p) await post('/v1/fee_plan', key, { p2p });
    const tenant = await getTenantRecord(wallet, tenantId);
    const user = async (i: number) => {
      const id = (await post('/v1/users', key, { external_id: `bench-${i}` })).json.id as string;
      return { id, cash: (await getUserRecord(wallet, tenantId, id)).cash_account_id };
    };
    const senders = await Promise.all(Array.from({ length: WRITERS }, (_, i) => user(i)));
    const receivers = await Promise.all(Array.from({ length: WRITERS }, (_, i) => user(WRITERS + i)));
    for (const sender of senders) {
      await ledger.post(tenant.ledger_id, { type: 'topup', legs: [{ account_id: tenant.accounts.funding, direction: 'debit', amount: 1e12, commodity: 'USD' }, { account_id: sender.cash, direction: 'credit', amount: 1e12, commodity: 'USD' }] }, uuidv7());
    }
    return { tenant, key, senders, receivers };
  };
  const P2P_FEE: FeeRule = { bps: 100, flat: 1, min_fee: 1, max_fee: 100 };
  const withFee = await setUp('bench fee', P2P_FEE);
  const noFee = await setUp('bench no fee');

  const transfer = (world: typeof withFee) => async (w: number) =>
    (await post('/v1/transfers', world.key, { from_user_id: world.senders[w]!.id, to_user_id: world.receivers[w]!.id, amount: 1 }, uuidv7())).status === 201;
  /** The posting a transfer of 1 makes (the transfer's own legs): with a fee rule, the fee to the tenant's revenue account too. */
  const ledgerPosting = (world: typeof withFee, rule: FeeRule = ZERO_RULE) => async (w: number) => {
    const accounts = { currency: 'USD', from_account_id: world.senders[w]!.cash, to_account_id: world.receivers[w]!.cash, revenue_account_id: world.tenant.accounts.revenue };
    const legs = transferLegs(accounts, transferAmounts(rule, 1));
    try {
      await ledger.post(world.tenant.ledger_id, { type: 'bench', legs }, uuidv7());
      return true;
    } catch {
      return false;
    }
  };

  const results: { concurrency: number; ledger: Figures; ledger_3_legs: Figures; wallet_no_fee: Figures; wallet_fee: Figures; ratio_no_fee: number; ratio_fee: number }[] = [];
  console.log(`wallet benchmark: ${SECONDS}s per case in ${ROUNDS} interleaved rounds after ${WARMUP_SECONDS}s warm-up each, ${cpus().length} cores, Node ${process.version}`);
  for (const concurrency of CONCURRENCIES) {
    const [ledgerFigures, walletNoFee, ledger3Figures, walletFee] = (await measureInterleaved(
      [
        { name: 'ledger 2-leg posting', operation: ledgerPosting(noFee) },
        { name: 'wallet transfer, no fee (2 legs)', operation: transfer(noFee) },
        { name: 'ledger 3-leg posting (a fee)', operation: ledgerPosting(withFee, P2P_FEE) },
        { name: 'wallet transfer, p2p fee (3 legs)', operation: transfer(withFee) },
      ],
      concurrency,
      timing,
    )) as [Figures, Figures, Figures, Figures];
    results.push({ concurrency, ledger: ledgerFigures, ledger_3_legs: ledger3Figures, wallet_no_fee: walletNoFee, wallet_fee: walletFee, ratio_no_fee: ratioOf(walletNoFee, ledgerFigures), ratio_fee: ratioOf(walletFee, ledger3Figures) });
    // Each transfer against the posting it makes.
    for (const [f, posting] of [[ledgerFigures], [walletNoFee, ledgerFigures], [ledger3Figures], [walletFee, ledger3Figures]] as [Figures, Figures?][]) {
      console.log(`${f.case.padEnd(34)} c=${String(concurrency).padStart(2)}  ${String(f.per_second).padStart(7)}/s  p50 ${String(f.p50_ms).padStart(6)} ms  p99 ${String(f.p99_ms).padStart(6)} ms  errors ${f.errors}  ${cpuPerOp(f)}${posting ? `  wallet/ledger ${ratioWithRounds(f, posting)}` : ''}`);
    }
  }

  // Capacity: sequential operations with both document clients wrapped.
  const reader = localDocumentClient(platform.dynamodbEndpoint);
  const meter = new CapacityMeter(reader, { [platform.tables.wallet.name]: walletTable, [platform.tables.ledger.name]: ledgerTable });
  meter.wrap(wallet.client, 'wallet');
  meter.wrap(ledgerRuntime().client, 'ledger');
  const sample = async (run: (w: number) => Promise<boolean>) => {
    meter.reset();
    for (let i = 0; i < CAPACITY_SAMPLE; i += 1) if (!(await run(i % WRITERS))) throw new Error('a sampled operation failed');
    return meter.per(CAPACITY_SAMPLE);
  };
  const capacity = { transfer_fee: await sample(transfer(withFee)), transfer_no_fee: await sample(transfer(noFee)), ledger_posting: await sample(ledgerPosting(noFee)) };
  for (const [name, units] of Object.entries(capacity)) {
    console.log(`capacity per ${name.replace(/_/g, ' ')}: ${units.modelled_write_units} write units modelled at AWS pricing; DynamoDB Local reports ${units.reported_write_units} write, ${units.reported_read_units} read`);
    for (const row of units.modelled) console.log(`  ${row.call.padEnd(58)} items ${row.items.toFixed(2).padStart(5)}  write units ${row.write_units.toFixed(2).padStart(6)}`);
  }

  const summary = { at: new Date().toISOString(), seconds_per_case: SECONDS, rounds: ROUNDS, node: process.version, cores: cpus().length, results, capacity };
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `wallet-${summary.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
  console.log(`wrote ${file}`);
} finally {
  await platform.stop();
}
