import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import { ensureTables } from '../../local/tables';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import {
  ConsumerConflictError,
  ConsumerNotFoundError,
  InvalidConsumerError,
  createConsumerStore,
  type ConsumerStore,
} from '../../shared/ledger/consumers';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..', '..');
const tsx = join(repo, 'node_modules', '.bin', 'tsx');

const clock = new ManualClock('2026-03-01T12:00:00.000Z');
let documents: DocumentClient;
let tableName: string;
let store: ConsumerStore;

/** Names and subs unique to one test, so tests share the table without seeing each other. */
const unique = (label: string) => `${label}-${uuidv7().slice(-12)}`;

beforeAll(async () => {
  documents = localDocumentClient(inject('dynamodbEndpoint'));
  tableName = (await ensureTables(inject('dynamodbEndpoint'), `consumers${uuidv7().slice(-8)}`)).ledger.name;
  store = createConsumerStore(documents, tableName, clock, uuidv7);
});


describe('consumer store', () => {
  it('creates a consumer with its sub and name guards in the documented layout', async () => {
    const name = unique('wallet');
    const consumer = await store.createConsumer({ name, sub: `sub-${name}` });

    const get = async (pk: string, sk: string) => (await documents.send(new GetCommand({ TableName: tableName, Key: { pk, sk } }))).Item;
    expect(await get(`CONSUMER#${consumer.id}`, 'CONSUMER')).toEqual({
      pk: `CONSUMER#${consumer.id}`,
      sk: 'CONSUMER',
      entity: 'consumer',
      id: consumer.id,
      name,
      sub: `sub-${name}`,
      feed_blocked: false,
      created_at: '2026-03-01T12:00:00.000Z',
      gsi1pk: 'CONSUMERS',
      gsi1sk: consumer.id,
    });
    expect(await get(`CONSUMER_SUB#sub-${name}`, 'CONSUMER_SUB')).toMatchObject({ consumer_id: consumer.id });
    expect(await get(`CONSUMER_NAME#${name}`, 'CONSUMER_NAME')).toMatchObject({ consumer_id: consumer.id });
  });

  it('refuses a second consumer with a taken name', async () => {
    const name = unique('dup-name');
    await store.createConsumer({ name, sub: unique('sub') });

    const attempt = store.createConsumer({ name, sub: unique('sub') });

    await expect(attempt).rejects.toBeInstanceOf(ConsumerConflictError);
    await expect(attempt).rejects.toMatchObject({ code: 'conflict', field: 'name' });
  });

  it('refuses a second consumer with a taken sub', async () => {
    const sub = unique('dup-sub');
    await store.createConsumer({ name: unique('first'), sub });

    const attempt = store.createConsumer({ name: unique('second'), sub });

    await expect(attempt).rejects.toMatchObject({ code: 'conflict', field: 'sub' });
  });

  it('leaves nothing behind when a create is refused', async () => {
    const sub = unique('kept');
    await store.createConsumer({ name: unique('owner'), sub });
    const loser = unique('loser');

    await expect(store.createConsumer({ name: loser, sub })).rejects.toBeInstanceOf(ConsumerConflictError);

    expect(await store.findConsumerByName(loser)).toBeUndefined();
  });

  it('ensure creates once, then returns the same consumer', async () => {
    const input = { name: unique('ensure'), sub: unique('sub') };

    const first = await store.ensureConsumer(input);
    const second = await store.ensureConsumer(input);

    expect(first.created).toBe(true);
    expect(second).toEqual({ created: false, consumer: first.consumer });
  });

  it('ensure refuses a name paired with another sub', async () => {
    const name = unique('paired');
    await store.createConsumer({ name, sub: unique('sub') });

    await expect(store.ensureConsumer({ name, sub: unique('other') })).rejects.toMatchObject({ code: 'conflict', field: 'name' });
  });

  it('ensure refuses a sub paired with another name', async () => {
    const sub = unique('paired-sub');
    await store.createConsumer({ name: unique('name'), sub });

    await expect(store.ensureConsumer({ name: unique('other'), sub })).rejects.toMatchObject({ code: 'conflict', field: 'sub' });
  });

  it('concurrent ensures of one pairing create exactly one consumer', async () => {
    const input = { name: unique('race'), sub: unique('sub') };

    const results = await Promise.all([store.ensureConsumer(input), store.ensureConsumer(input), store.ensureConsumer(input)]);

    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.consumer.id)).size).toBe(1);
  });

  it('lists consumers oldest first', async () => {
    const a = await store.createConsumer({ name: unique('list-a'), sub: unique('sub') });
    const b = await store.createConsumer({ name: unique('list-b'), sub: unique('sub') });

    const listed = (await store.listConsumers()).map((c) => c.id);

    expect(listed).toContain(a.id);
    expect(listed.indexOf(a.id)).toBeLessThan(listed.indexOf(b.id));
  });

  it('finds a consumer by sub, and nothing for an unknown or malformed sub', async () => {
    const created = await store.createConsumer({ name: unique('find'), sub: unique('sub') });

    expect(await store.findConsumerBySub(created.sub)).toEqual(created);
    expect(await store.findConsumerBySub(unique('nobody'))).toBeUndefined();
    expect(await store.findConsumerBySub('with space')).toBeUndefined();
    expect(await store.findConsumerBySub('')).toBeUndefined();
  });

  it('blocks and unblocks the event feed by name', async () => {
    const created = await store.createConsumer({ name: unique('feed'), sub: unique('sub') });

    expect((await store.setFeedBlocked(created.name, true)).feedBlocked).toBe(true);
    expect((await store.findConsumerBySub(created.sub))?.feedBlocked).toBe(true);
    expect((await store.setFeedBlocked(created.name, false)).feedBlocked).toBe(false);
  });

  it('refuses to block the feed of an unknown consumer', async () => {
    await expect(store.setFeedBlocked(unique('ghost'), true)).rejects.toBeInstanceOf(ConsumerNotFoundError);
  });

  it.each([
    ['an empty name', { name: '', sub: 'x' }],
    ['a name with a space', { name: 'my wallet', sub: 'x' }],
    ['a name over 100 characters', { name: 'n'.repeat(101), sub: 'x' }],
    ['an empty sub', { name: 'ok', sub: '' }],
    ['a sub over 255 characters', { name: 'ok', sub: 's'.repeat(256) }],
  ])('refuses %s', async (_label, input) => {
    await expect(store.createConsumer(input)).rejects.toBeInstanceOf(InvalidConsumerError);
  });
});

describe('ledger:consumers command', () => {
  let dataDir: string;
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(tsx, [join(repo, 'scripts', 'ledger-consumers.ts'), ...args], {
      cwd: repo,
      env: { ...process.env, DATA_DIR: dataDir, LEDGER_TABLE: '', ...env },
    });
  const commandFailure = async (promise: Promise<unknown>) => {
    const error = (await promise.then(
      () => undefined,
      (e: unknown) => e,
    )) as { code: number; stderr: string } | undefined;
    if (!error) throw new Error('the command succeeded');
    return error;
  };

  beforeAll(() => {
    // What local/main.ts writes for a running platform; this process stands in for it.
    dataDir = mkdtempSync(join(tmpdir(), 'consumers-cli-'));
    writeFileSync(
      join(dataDir, 'platform.json'),
      JSON.stringify({
        pid: process.pid,
        urls: { public: 'http://127.0.0.1:1', ledger: 'http://127.0.0.1:2', console: 'http://127.0.0.1:3' },
        dynamodb_endpoint: inject('dynamodbEndpoint'),
        tables: { ledger: { name: tableName }, wallet: { name: 'unused' } },
      }),
    );
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('ensures, lists and blocks a consumer in the running platform without flags', async () => {
    const name = unique('cli');
    const sub = unique('client');

    const ensured = JSON.parse((await cli(['ensure', '--name', name, '--sub', sub])).stdout);
    const again = JSON.parse((await cli(['ensure', '--name', name, '--sub', sub])).stdout);
    const listed = JSON.parse((await cli(['list'])).stdout);
    const blocked = JSON.parse((await cli(['block-feed', '--name', name])).stdout);

    expect(ensured).toMatchObject({ created: true, consumer: { name, sub, feed_blocked: false } });
    expect(again).toEqual({ ...ensured, created: false });
    expect(listed).toContainEqual(ensured.consumer);
    expect(blocked).toMatchObject({ id: ensured.consumer.id, feed_blocked: true });
    expect(await store.findConsumerBySub(sub)).toMatchObject({ feedBlocked: true });
  });

  it('fails with one error line when the name is taken', async () => {
    const name = unique('taken');
    await store.createConsumer({ name, sub: unique('sub') });

    const error = await commandFailure(cli(['create', '--name', name, '--sub', unique('sub')]));

    expect(error.code).toBe(1);
    expect(error.stderr.trim().split('\n').pop()).toBe(`error: A ledger consumer named "${name}" already exists.`);
  });

  it('fails with one error line when the platform is not running', async () => {
    const error = await commandFailure(cli(['list'], { DATA_DIR: join(dataDir, 'nowhere') }));

    expect(error.code).toBe(1);
    expect(error.stderr).toMatch(/^error: the embedded platform is not running/);
  });

  it('refuses a command without its options before touching anything', async () => {
    const error = await commandFailure(cli(['create', '--name', 'x']));

    expect(error.code).toBe(2);
    expect(error.stderr).toMatch(/^error: create needs --sub/);
  });
});
