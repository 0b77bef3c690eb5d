import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { TransactWriteCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { readClient } from '../../shared/wallet/catalog/clients';
import { importCatalog } from '../../shared/wallet/catalog/imports';
import { IMPORT_MAX_ROWS } from '../../shared/wallet/catalog/schemas';
import type { WalletDeps } from '../../shared/wallet/deps';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * Bulk import: every row checked before anything is written, all or nothing, once per
 * Idempotency-Key, and a file sent again changes nothing. Products match by ref, variants by sku.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let apiKey: string;
let tenantId: string;
let documents: DocumentClient;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  documents = localDocumentClient(platform.dynamodbEndpoint);
  const platformStaff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, platformStaff, 'Import');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
});

afterAll(() => platform?.stop());

const jsonFile = (suffix: string) => ({
  products: [
    {
      ref: `TEE-${suffix}`,
      kind: 'item',
      title: 'Tee',
      status: 'published',
      variants: [
        { sku: `TEE-S-${suffix}`, amount: 1_500, option_values: ['S'], inventory: { on_hand: 4 } },
        { sku: `TEE-M-${suffix}`, pricing_mode: 'markup', cost_amount: 1_000, markup: { kind: 'percent', value: 50 } },
      ],
    },
    { ref: `BOX-${suffix}`, kind: 'plan', title: 'Monthly box', amount: 2_500, interval: 'monthly', status: 'published' },
  ],
});

const importInto = (clientId: string, body: unknown, key = uuidv7()) => api('POST', `/v1/clients/${clientId}/imports`, { token: apiKey, key, body });
const offeringsOf = async (clientId: string) => (await api('GET', `/v1/clients/${clientId}/offerings?limit=50`, { token: apiKey })).body.data;

describe('a JSON import', () => {
  it('creates the products, answers a retry with the first answer, and changes nothing when sent again', async () => {
    const client = await clientOf(base, apiKey);
    const key = uuidv7();
    const first = await importInto(client.id, { format: 'json', content: jsonFile('a') }, key);
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ client_id: client.id, format: 'json', dry_run: false, products: 2, rows: 3, updated: [], archived: [], unchanged: [] });
    expect(first.body.created.map((p: { ref: string }) => p.ref)).toEqual(['TEE-a', 'BOX-a']);

    const offerings = await offeringsOf(client.id);
    expect(offerings).toHaveLength(2);
    const tee = offerings.find((o: { ref: string }) => o.ref === 'TEE-a');
    expect(tee).toMatchObject({ status: 'published', kind: 'item', amount: 1_500 });
    expect(tee.variants.map((v: { sku: string; amount: number; inventory: { on_hand: number } }) => [v.sku, v.amount, v.inventory.on_hand])).toEqual([
      ['TEE-S-a', 1_500, 4],
      ['TEE-M-a', 1_500, 0],
    ]);
    expect(offerings.find((o: { ref: string }) => o.ref === 'BOX-a')).toMatchObject({ kind: 'plan', amount: 2_500, interval: 'monthly', variants: [] });

    const replay = await importInto(client.id, { format: 'json', content: jsonFile('a') }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expectProblem(await importInto(client.id, { format: 'json', content: jsonFile('b') }, key), 'idempotency_key_reuse');

    const again = await importInto(client.id, { format: 'json', content: jsonFile('a') });
    expect(again.status, again.text).toBe(201);
    expect(again.body).toMatchObject({ created: [], updated: [], archived: [] });
    expect(again.body.unchanged.map((p: { ref: string }) => p.ref).sort()).toEqual(['BOX-a', 'TEE-a']);
    expect(await offeringsOf(client.id)).toEqual(offerings);

    const events = await api('GET', '/v1/webhook_events?limit=100', { token: apiKey });
    const completed = events.body.data.filter((e: { type: string; client_id?: string }) => e.type === 'import.completed' && e.client_id === client.id);
    expect(completed).toHaveLength(2);
    const created = events.body.data.filter((e: { type: string; client_id?: string }) => e.type === 'product.created' && e.client_id === client.id);
    expect(created).toHaveLength(2);
  });

  it('writes nothing when any row is wrong, and names every wrong row', async () => {
    const client = await clientOf(base, apiKey);
    const taken = await importInto(client.id, { format: 'json', content: jsonFile('t') });
    expect(taken.status).toBe(201);
    const before = await offeringsOf(client.id);
    const file = {
      products: [
        { ref: 'GOOD-1', kind: 'item', title: 'Fine', variants: [{ sku: 'GOOD-1-S', amount: 100 }] },
        { ref: 'BAD-1', kind: 'item', title: 'Bad', variants: [{ sku: 'bad sku', amount: 100 }] },
        { ref: 'BAD-2', kind: 'item', title: 'Taken', variants: [{ sku: 'TEE-S-t', amount: 100 }] },
        { ref: 'BAD-3', kind: 'plan', title: 'No interval', amount: 100 },
      ],
    };
    const refused = await importInto(client.id, { format: 'json', content: file });
    expectProblem(refused, 'invalid_request');
    const fields = refused.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toContain('products[1].variants[0].sku');
    expect(fields).toContain('products[2].variants[0].sku');
    expect(fields).toContain('products[3].amount');
    expect(await offeringsOf(client.id)).toEqual(before);
  });

  it('reports what a dry run would do and writes nothing', async () => {
    const client = await clientOf(base, apiKey);
    const dry = await importInto(client.id, { format: 'json', content: jsonFile('d'), dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.body.created).toEqual([
      { ref: 'TEE-d', offering_id: null },
      { ref: 'BOX-d', offering_id: null },
    ]);
    expect(await offeringsOf(client.id)).toEqual([]);
  });

  it(`is bounded: at most ${IMPORT_MAX_ROWS} rows`, async () => {
    const client = await clientOf(base, apiKey);
    const products = Array.from({ length: IMPORT_MAX_ROWS + 1 }, (_, i) => ({ ref: `P-${i}`, kind: 'item', title: 'P', variants: [{ sku: `S-${i}`, amount: 1 }] }));
    expectProblem(await importInto(client.id, { format: 'json', content: { products } }), 'invalid_request');
    expectProblem(await api('POST', `/v1/clients/${client.id}/imports`, { token: apiKey, body: { format: 'json', content: jsonFile('k') } }), 'invalid_request');
  });
});

describe('a CSV import', () => {
  const header = 'ref,kind,title,description,status,sku,option_values,amount,cost_amount,on_hand,low_stock_threshold';

  it('creates, then updates prices and counts (logging the stock change) and archives by status', async () => {
    const client = await clientOf(base, apiKey);
    const csv = [header, 'MUG,item,Mug,"Big, blue",published,MUG-1,,900,400,10,2', 'MUG,item,Mug,"Big, blue",published,MUG-2,,950,,5,', 'CAP,item,Cap,,draft,CAP-1,,500,,,'].join('\n');
    const created = await importInto(client.id, { format: 'csv', content: csv });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ products: 2, rows: 3 });
    const mug = (await offeringsOf(client.id)).find((o: { ref: string }) => o.ref === 'MUG');
    expect(mug).toMatchObject({ title: 'Mug', description: 'Big, blue', status: 'published' });

    const changed = [header, 'MUG,item,Mug,"Big, blue",published,MUG-1,,990,400,7,2', 'MUG,item,Mug,"Big, blue",published,MUG-2,,950,,5,', 'CAP,item,Cap,,archived,CAP-1,,500,,,'].join('\r\n');
    const updated = await importInto(client.id, { format: 'csv', content: changed });
    expect(updated.status, updated.text).toBe(201);
    expect(updated.body.updated).toEqual([{ ref: 'MUG', offering_id: mug.id }]);
    expect(updated.body.archived.map((p: { ref: string }) => p.ref)).toEqual(['CAP']);

    const after = await api('GET', `/v1/clients/${client.id}/offerings/${mug.id}`, { token: apiKey });
    expect(after.body.variants[0]).toMatchObject({ sku: 'MUG-1', amount: 990, inventory: { on_hand: 7 } });
    const log = await api('GET', `/v1/clients/${client.id}/stock_movements?variant_id=${after.body.variants[0].id}`, { token: apiKey });
    expect(log.body.data[0]).toMatchObject({ kind: 'adjustment', quantity: -3, on_hand_after: 7, reason: 'catalog import' });
  });

  it('refuses a wrong header and reports rows by their line', async () => {
    const client = await clientOf(base, apiKey);
    expectProblem(await importInto(client.id, { format: 'csv', content: 'ref,title\nA,B' }), 'invalid_request');
    const refused = await importInto(client.id, { format: 'csv', content: [header, 'A,item,A,,,A-1,,100,,,', 'B,item,B,,,B-1,,ten,,,'].join('\n') });
    expectProblem(refused, 'invalid_request');
    expect(refused.body.errors).toEqual([{ field: 'rows[3].amount', message: 'not an integer' }, { field: 'rows[3].amount', message: 'an item variant needs an amount' }]);
    expect(await offeringsOf(client.id)).toEqual([]);
  });
});

/**
 * An import's first try, run as the platform runs it but started SWEEP_AFTER_MS ago (so the sweeper
 * takes it over) on a client that runs `race` just before the import's commit is sent: a change
 * that lands between what the import read and its one transaction.
 */
async function firstTry(clientId: string, content: Record<string, unknown>, key: string, race: () => Promise<void>) {
  let raced = false;
  const racing: DocumentClient = {
    send: async (command) => {
      if (command instanceof TransactWriteCommand && !raced) {
        raced = true;
        await race();
      }
      return documents.send(command);
    },
  };
  const runtime: WalletDeps = {
    client: racing,
    table: platform.tables.wallet.name,
    clock: new ManualClock(new Date(Date.now() - SWEEP_AFTER_MS - 5_000)),
    ids: uuidv7,
    signer: () => Promise.reject(new Error('no signer here')),
    ledger: () => {
      throw new Error('an import posts nothing');
    },
  };
  // The tenant's unbound API key, as the HTTP retry sends it: the same caller, so the same key.
  const principal: Principal = { kind: 'api_key', id: `key-${uuidv7()}`, scopes: new Set(TENANT_SCOPES), tenantId };
  const client = await readClient(runtime, tenantId, clientId);
  return importCatalog(runtime, principal, client, { format: 'json', content, dry_run: false }, { idempotencyKey: key, requestId: uuidv7() });
}

describe('an import answered idempotency_in_flight', () => {
  const file = (suffix: string, amount: number) => ({
    products: [{ ref: `RACE-${suffix}`, kind: 'item', title: 'Race', status: 'published', variants: [{ sku: `RACE-${suffix}-S`, amount, inventory: { on_hand: 7 } }] }],
  });

  /** A product imported over HTTP: the file's variant, 7 on hand at 1,500, and one the file does not mention. */
  async function stocked(suffix: string) {
    const client = await clientOf(base, apiKey);
    const content = file(suffix, 1_500);
    content.products[0]!.variants.push({ sku: `RACE-${suffix}-M`, amount: 1_600, inventory: { on_hand: 3 } });
    const created = await importInto(client.id, { format: 'json', content });
    expect(created.status, created.text).toBe(201);
    const offering = (await offeringsOf(client.id))[0];
    const variant = offering.variants[0];
    const variantPath = `/v1/clients/${client.id}/offerings/${offering.id}/variants/${variant.id}`;
    return {
      client,
      variantPath,
      setStock: async (to: number) => {
        const changed = await api('POST', `${variantPath}/stock`, { token: apiKey, body: { set_to: to, reason: 'counted by hand' } });
        expect(changed.status, changed.text).toBe(200);
      },
      variants: async () => (await api('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey })).body.variants,
      variant: async () => (await api('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey })).body.variants[0],
      movements: async () => (await api('GET', `/v1/clients/${client.id}/stock_movements?variant_id=${variant.id}`, { token: apiKey })).body.data,
    };
  }

  /** The refusal a resumed import answers once a manual stock change landed after its first try read. */
  const expectStale = (answer: Awaited<ReturnType<typeof importInto>>, sku: string) => {
    expectProblem(answer, 'conflict');
    expect(answer.body.errors).toEqual([{ field: 'products[0].variants[0].sku', message: `${sku} changed after this import first read it` }]);
  };

  it('is refused by the retry when the stock changed after it answered, and the change survives', async () => {
    const product = await stocked('r');
    const key = uuidv7();
    // The first try reads 7 on hand; a manual 7 → 500 lands before its commit, which loses.
    await expect(firstTry(product.client.id, file('r', 990), key, () => product.setStock(500))).rejects.toMatchObject({ code: 'idempotency_in_flight' });

    const retry = await importInto(product.client.id, { format: 'json', content: file('r', 990) }, key);
    expectStale(retry, 'RACE-r-S');
    const again = await importInto(product.client.id, { format: 'json', content: file('r', 990) }, key);
    expect(again.text).toBe(retry.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    expect(await product.variant()).toMatchObject({ amount: 1_500, inventory: { on_hand: 500 } });
    expect((await product.movements())[0]).toMatchObject({ kind: 'adjustment', quantity: 493, on_hand_after: 500, reason: 'counted by hand' });
  });

  it('is refused by the sweeper when the stock changed after it answered, and the change survives', async () => {
    const product = await stocked('s');
    const key = uuidv7();
    await expect(firstTry(product.client.id, file('s', 990), key, () => product.setStock(500))).rejects.toMatchObject({ code: 'idempotency_in_flight' });

    const swept = (await platform.scheduler.run('walletSweepOperations')) as { finished: number };
    expect(swept.finished).toBeGreaterThanOrEqual(1);
    expect(await product.variant()).toMatchObject({ amount: 1_500, inventory: { on_hand: 500 } });
    expect((await product.movements())[0]).toMatchObject({ kind: 'adjustment', on_hand_after: 500, reason: 'counted by hand' });

    // The client's late retry reads the sweeper's answer: the refusal, the same bytes every time.
    const retry = await importInto(product.client.id, { format: 'json', content: file('s', 990) }, key);
    expectStale(retry, 'RACE-s-S');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await importInto(product.client.id, { format: 'json', content: file('s', 990) }, key)).text).toBe(retry.text);
  });

  it('completes exactly as first asked when nothing it reads changed before the sweeper resumed it', async () => {
    const product = await stocked('u');
    const key = uuidv7();
    // The first try's commit never goes out (the process dies).
    const crash = () => Promise.reject(new Error('crashed before the commit'));
    await expect(firstTry(product.client.id, file('u', 990), key, crash)).rejects.toThrow('crashed');
    expect(await product.variant()).toMatchObject({ amount: 1_500, inventory: { on_hand: 7 } });
    // The stock of a variant the file does not mention is not what the import read: it is neither refused for it nor undoes it.
    const other = (await product.variants())[1];
    const counted = await api('POST', `${product.variantPath.slice(0, product.variantPath.lastIndexOf('/'))}/${other.id}/stock`, { token: apiKey, body: { delta: 2, reason: 'found two more' } });
    expect(counted.status, counted.text).toBe(200);

    const swept = (await platform.scheduler.run('walletSweepOperations')) as { finished: number };
    expect(swept.finished).toBeGreaterThanOrEqual(1);
    expect((await product.variants()).map((v: { amount: number; inventory: { on_hand: number } }) => [v.amount, v.inventory.on_hand])).toEqual([
      [990, 7],
      [1_600, 5],
    ]);
    const retry = await importInto(product.client.id, { format: 'json', content: file('u', 990) }, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ updated: [{ ref: 'RACE-u' }], created: [], unchanged: [] });
  });
});

describe('a file that repeats a SKU or a ref', () => {
  it('is refused naming the repeat, remembered under its key, and writes nothing', async () => {
    const client = await clientOf(base, apiKey);
    const sku = {
      products: [
        { ref: 'DUP-A', kind: 'item', title: 'A', variants: [{ sku: 'DUP-S', amount: 100 }] },
        { ref: 'DUP-B', kind: 'item', title: 'B', variants: [{ sku: 'DUP-S', amount: 200 }] },
      ],
    };
    const key = uuidv7();
    const refused = await importInto(client.id, { format: 'json', content: sku }, key);
    expectProblem(refused, 'invalid_request');
    expect(refused.body.errors).toEqual([{ field: 'products[1].variants[0].sku', message: 'DUP-S is also at products[0].variants[0]' }]);
    const replay = await importInto(client.id, { format: 'json', content: sku }, key);
    expect(replay.text).toBe(refused.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const ref = {
      products: [
        { ref: 'DUP-R', kind: 'item', title: 'One', variants: [{ sku: 'DUP-R-1', amount: 100 }] },
        { ref: 'DUP-R', kind: 'item', title: 'Two', variants: [{ sku: 'DUP-R-2', amount: 100 }] },
      ],
    };
    const twice = await importInto(client.id, { format: 'json', content: ref });
    expectProblem(twice, 'invalid_request');
    expect(twice.body.errors).toEqual([{ field: 'products[1].ref', message: 'DUP-R is also at products[0]' }]);
    expectProblem(await importInto(client.id, { format: 'json', content: ref, dry_run: true }), 'invalid_request');
    expect(await offeringsOf(client.id)).toEqual([]);
  });
});
