import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from '../../shared/kernel/zod';
import { QueryCommand } from '../../shared/aws/dynamodb';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { exploreRoutes as shopperRoutes } from '../../shared/wallet/catalog/explore-routes';
import { catalogKeys } from '../../shared/wallet/catalog/keys';
import * as shopperSchemas from '../../shared/wallet/catalog/explore-schemas';
import * as schemas from '../../shared/wallet/catalog/schemas';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { startReceiver, type Receiver } from '../integration/webhooks-receiver';
import { until } from '../support/time';
import { createTenant } from '../support/tenants';

/**
 * The catalog over HTTP as a merchant and a shopper use it: clients, offerings with variants,
 * pricing, stock, Explore's shopper view, moderation. Authority and concurrency have files of
 * their own (catalog-authority, catalog-stock); bulk import is in catalog-import.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let apiKey: string;
let platformStaff: string;
let shopper: string;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startTestPlatform();
  base = platform.urls.public;
  platformStaff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, platformStaff, 'Catalog tenant');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  expect((await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'shopper' } })).status).toBe(201);
  shopper = await userTokenFor(platform, apiKey, 'shopper', ['catalog:read']);
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

const twoVariants = [
  { sku: 'TEE-S', option_values: ['S'], amount: 1_500, cost_amount: 700, inventory: { on_hand: 10, low_stock_threshold: 2 } },
  { sku: 'TEE-L', option_values: ['L'], pricing_mode: 'markup', cost_amount: 1_000, markup: { kind: 'percent', value: 25 } },
];

async function offeringOf(clientId: string, body: Record<string, unknown> = {}) {
  const created = await api('POST', `/v1/clients/${clientId}/offerings`, {
    token: apiKey,
    body: { title: 'Tee', options: ['size'], variants: twoVariants.map((v) => ({ ...v, sku: `${v.sku}-${uuidv7().slice(-8)}` })), ...body },
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

describe('clients', () => {
  it('are onboarded pending, approved once with approved_at, and suspended', async () => {
    const merchant = await api('POST', '/v1/merchants', { token: apiKey, body: { name: 'Books' } });
    const alias = `books-${uuidv7().slice(-8)}`;
    const created = await api('POST', '/v1/clients', {
      token: apiKey,
      body: { merchant_id: merchant.body.id, org_alias: alias, display_name: 'Books', category: 'books', description: 'Used books' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', approved_at: null, hidden: false, commission_bps: 0, org_alias: alias, logo_url: null });

    const approved = await api('POST', `/v1/clients/${created.body.id}/approve`, { token: apiKey });
    expect(approved.body.status).toBe('active');
    expect(approved.body.approved_at).toEqual(expect.any(String));
    const again = await api('POST', `/v1/clients/${created.body.id}/approve`, { token: apiKey });
    expect(again.body.approved_at).toBe(approved.body.approved_at);
    expect((await api('POST', `/v1/clients/${created.body.id}/suspend`, { token: apiKey })).body.status).toBe('suspended');

    expectProblem(await api('POST', '/v1/clients', { token: apiKey, body: { merchant_id: merchant.body.id, org_alias: alias, display_name: 'Twin', category: 'books' } }), 'conflict');
    expectProblem(await api('POST', '/v1/clients', { token: apiKey, body: { merchant_id: uuidv7(), org_alias: `x-${uuidv7().slice(-8)}`, display_name: 'X', category: 'books' } }), 'not_found');
    expectProblem(await api('POST', '/v1/clients', { token: apiKey, body: { merchant_id: merchant.body.id, org_alias: 'Not A Slug', display_name: 'X', category: 'books' } }), 'invalid_request');

    const listed = await api('GET', '/v1/clients?status=suspended', { token: apiKey });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(created.body.id);
    expect(listed.body.data.every((c: { status: string }) => c.status === 'suspended')).toBe(true);
  });

  it('refuse an API key bound to a client that is not the tenant\'s', async () => {
    const staff = await staffToken(platform, { role: 'tenant_staff', tenantId });
    expectProblem(await api('POST', '/v1/api_keys', { token: staff, body: { env: 'sandbox', scopes: ['merchants:read'], client_id: uuidv7() } }), 'client_not_found');
    const client = await clientOf(base, apiKey);
    const bound = await api('POST', '/v1/api_keys', { token: staff, body: { env: 'sandbox', scopes: ['merchants:read', 'users:read'], client_id: client.id } });
    expect(bound.status, bound.text).toBe(201);
    // It acts on its client only: never tenant-wide.
    expect((await api('GET', `/v1/clients/${client.id}`, { token: bound.body.key })).status).toBe(200);
    expectProblem(await api('GET', '/v1/users', { token: bound.body.key }), 'forbidden');
  });
});

describe('offerings and variants', () => {
  it('price manual and markup variants, rounding a percent markup half up, and show merchant-only fields to the merchant', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id, { variants: [
      { sku: `A-${uuidv7().slice(-8)}`, option_values: ['S'], amount: 1_500, cost_amount: 700 },
      { sku: `B-${uuidv7().slice(-8)}`, option_values: ['M'], cost_amount: 999, markup: { kind: 'percent', value: 15 } },
      { sku: `C-${uuidv7().slice(-8)}`, option_values: ['L'], cost_amount: 1_000, markup: { kind: 'fixed', value: 250 } },
    ] });
    expect(offering).toMatchObject({ status: 'draft', kind: 'item', amount: 1_149, commission_bps: 0, options: ['size'] });
    // 999 × 15% = 149.85 → 150, half up: 1149.
    expect(offering.variants.map((v: { amount: number }) => v.amount)).toEqual([1_500, 1_149, 1_250]);
    expect(offering.variants[1]).toMatchObject({ pricing_mode: 'markup', cost_amount: 999, markup: { kind: 'percent', value: 15 }, position: 2 });
    expect(offering.variants[0].inventory).toEqual({ track_inventory: true, on_hand: 0, reserved: 0, available: 0, low_stock_threshold: 0, allow_backorder: false, in_stock: false, low_stock: true });

    const read = await api('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(offering);
    const listed = await api('GET', `/v1/clients/${client.id}/offerings`, { token: apiKey });
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([offering.id]);
  });

  it('refuse bad shapes with a clear 400 and change nothing', async () => {
    const client = await clientOf(base, apiKey);
    const cases: [string, unknown][] = [
      ['plan without interval', { kind: 'plan', title: 'Box', amount: 900 }],
      ['item with an amount', { title: 'Tee', amount: 900 }],
      ['plan with variants', { kind: 'plan', title: 'Box', amount: 900, interval: 'monthly', variants: [{ sku: 'P-1', amount: 1 }] }],
      ['published item without variants', { title: 'Tee', status: 'published' }],
      ['manual variant without amount', { title: 'Tee', variants: [{ sku: 'X-1' }] }],
      ['markup variant without a markup', { title: 'Tee', variants: [{ sku: 'X-2', pricing_mode: 'markup', cost_amount: 10 }] }],
      ['option values that do not match', { title: 'Tee', options: ['size', 'color'], variants: [{ sku: 'X-3', amount: 1, option_values: ['S'] }] }],
      ['the same SKU twice', { title: 'Tee', variants: [{ sku: 'X-4', amount: 1 }, { sku: 'X-4', amount: 2 }] }],
      ['a percent markup past a hundredth', { title: 'Tee', variants: [{ sku: 'X-5', cost_amount: 10, markup: { kind: 'percent', value: 12.345 } }] }],
      ['a fixed markup with a fraction', { title: 'Tee', variants: [{ sku: 'X-6', cost_amount: 10, markup: { kind: 'fixed', value: 2.5 } }] }],
    ];
    for (const [label, body] of cases) expectProblem(await api('POST', `/v1/clients/${client.id}/offerings`, { token: apiKey, body }), 'invalid_request', label);
    expect((await api('GET', `/v1/clients/${client.id}/offerings`, { token: apiKey })).body.data).toEqual([]);
  });

  it('take a percent markup to a hundredth (12.5), rounding the price half up, and keep every amount beside it integer', async () => {
    const client = await clientOf(base, apiKey);
    const sku = () => `P-${uuidv7().slice(-8)}`;
    const created = await api('POST', `/v1/clients/${client.id}/offerings`, {
      token: apiKey,
      body: {
        title: 'Tee',
        markup: { kind: 'percent', value: 12.5 },
        variants: [
          { sku: sku(), pricing_mode: 'markup', cost_amount: 999 },
          { sku: sku(), cost_amount: 4, markup: { kind: 'percent', value: 12.5 } },
          { sku: sku(), cost_amount: 1_000, markup: { kind: 'percent', value: 7.25 } },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.markup).toEqual({ kind: 'percent', value: 12.5 });
    // 999 × 12.5 % = 124.875 → 125; 4 × 12.5 % = 0.5 → 1 (half up); 1000 × 7.25 % = 72.5 → 73.
    expect(created.body.variants.map((v: { amount: number }) => v.amount)).toEqual([1_124, 5, 1_073]);
    expect(created.body.variants[2].markup).toEqual({ kind: 'percent', value: 7.25 });
    const offering = `/v1/clients/${client.id}/offerings/${created.body.id}`;

    const patched = await api('PATCH', `${offering}/variants/${created.body.variants[2].id}`, { token: apiKey, body: { markup: { kind: 'percent', value: 33.33 } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ amount: 1_333, markup: { kind: 'percent', value: 33.33 } }); // 333.3 → 333
    const added = await api('POST', `${offering}/variants`, { token: apiKey, body: { sku: sku(), cost_amount: 1_000, markup: { kind: 'percent', value: 0.5 } } });
    expect(added.status, added.text).toBe(201);
    expect(added.body.amount).toBe(1_005);
    const repriced = await api('PATCH', offering, { token: apiKey, body: { markup: { kind: 'percent', value: 0.05 } } });
    expect(repriced.body.variants[0].amount).toBe(999); // 0.4995 → 0
    const imported = await api('POST', `/v1/clients/${client.id}/imports`, {
      token: apiKey,
      key: uuidv7(),
      body: { format: 'json', content: { products: [{ ref: `R-${uuidv7().slice(-8)}`, kind: 'item', title: 'Cap', variants: [{ sku: sku(), cost_amount: 200, markup: { kind: 'percent', value: 12.5 } }] }] } },
    });
    expect(imported.status, imported.text).toBe(201);
    const cap = await api('GET', `/v1/clients/${client.id}/offerings/${imported.body.created[0].offering_id}`, { token: apiKey });
    expect(cap.body.variants[0]).toMatchObject({ amount: 225, markup: { kind: 'percent', value: 12.5 } });

    // Only the markup's value is decimal: money next to it, an exponent or a third decimal are refused.
    const refused: [string, string][] = [
      ['a fractional cost beside a decimal markup', `{"title":"Tee","variants":[{"sku":"${sku()}","cost_amount":10.5,"markup":{"kind":"percent","value":12.5}}]}`],
      ['an exponent in the markup', `{"title":"Tee","variants":[{"sku":"${sku()}","cost_amount":10,"markup":{"kind":"percent","value":1.25e1}}]}`],
      ['a decimal under another name', `{"title":"Tee","value":12.5}`],
      ['a percent over 1000', `{"title":"Tee","markup":{"kind":"percent","value":1000.01}}`],
    ];
    for (const [label, rawBody] of refused) {
      expectProblem(await api('POST', `/v1/clients/${client.id}/offerings`, { token: apiKey, rawBody, headers: { 'content-type': 'application/json' } }), 'invalid_request', label);
    }
  });

  it('keep a SKU unique in the catalog, and move draft → published → archived, archived being final', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id);
    const sku = offering.variants[0].sku;
    expectProblem(await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants`, { token: apiKey, body: { sku, option_values: ['M'], amount: 5 } }), 'conflict');
    const added = await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants`, { token: apiKey, body: { sku: `${sku}-M`, option_values: ['M'], amount: 5 } });
    expect(added.status, added.text).toBe(201);
    expect(added.body.position).toBe(3);

    const published = await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey, body: { status: 'published', title: 'Tee shirt' } });
    expect(published.body).toMatchObject({ status: 'published', title: 'Tee shirt' });
    const archived = await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey, body: { status: 'archived' } });
    expect(archived.body).toMatchObject({ status: 'archived', variants: [] });
    expectProblem(await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey, body: { title: 'again' } }), 'invalid_transition');
    expectProblem(await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey, body: { status: 'published' } }), 'invalid_transition');
    expectProblem(
      await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${offering.variants[0].id}/stock`, { token: apiKey, body: { delta: 1, reason: 'found one' } }),
      'invalid_transition',
    );
  });

  it('take an offering out of its client\'s published index when it is unpublished or archived', async () => {
    const client = await clientOf(base, apiKey);
    const documents = localDocumentClient(platform.dynamodbEndpoint);
    const indexed = async () => {
      const page = await documents.send(
        new QueryCommand({ TableName: platform.tables.wallet.name, IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': catalogKeys.publishedOfferings(client.id) } }),
      );
      return (page.Items ?? []).map((item) => item.id as string);
    };
    const [drafted, archived] = [await offeringOf(client.id), await offeringOf(client.id)];
    for (const offering of [drafted, archived]) {
      expect((await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey, body: { status: 'published' } })).status).toBe(200);
    }
    expect((await indexed()).sort()).toEqual([drafted.id, archived.id].sort());

    expect((await api('PATCH', `/v1/clients/${client.id}/offerings/${drafted.id}`, { token: apiKey, body: { status: 'draft' } })).status).toBe(200);
    expect((await api('PATCH', `/v1/clients/${client.id}/offerings/${archived.id}`, { token: apiKey, body: { status: 'archived' } })).status).toBe(200);
    expect(await indexed()).toEqual([]);
  });

  it('refuse to retire the last live variant: archive the product instead', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id);
    const [first, second] = offering.variants;
    const retired = await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${first.id}/retire`, { token: apiKey });
    expect(retired.status, retired.text).toBe(200);
    expect(retired.body.status).toBe('archived');
    expectProblem(await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${second.id}/retire`, { token: apiKey }), 'invalid_request');
    const read = await api('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey });
    expect(read.body.variants.map((v: { id: string }) => v.id)).toEqual([second.id]);
    expectProblem(await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${first.id}/stock`, { token: apiKey, body: { delta: 1, reason: 'x' } }), 'invalid_transition');
    expectProblem(await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${first.id}`, { token: apiKey, body: { amount: 1 } }), 'invalid_transition');
  });

  it('reprice the variants that follow the offering markup when it changes', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id, {
      markup: { kind: 'percent', value: 10 },
      variants: [{ sku: `M-${uuidv7().slice(-8)}`, option_values: ['S'], pricing_mode: 'markup', cost_amount: 1_000 }],
    });
    expect(offering.variants[0].amount).toBe(1_100);
    const changed = await api('PATCH', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey, body: { markup: { kind: 'fixed', value: 1 } } });
    expect(changed.body.variants[0].amount).toBe(1_001);
  });
});

describe('stock', () => {
  it('changes by delta or to set_to, logs every movement with its resulting counts and actor, and compares-and-swaps', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id);
    const variant = offering.variants[0];
    const path = `/v1/clients/${client.id}/offerings/${offering.id}/variants/${variant.id}/stock`;
    const added = await api('POST', path, { token: apiKey, body: { delta: 5, reason: 'delivery' } });
    expect(added.status, added.text).toBe(200);
    expect(added.body.variant.inventory).toMatchObject({ on_hand: 15, reserved: 0, available: 15, in_stock: true, low_stock: false });
    expect(added.body.movement).toMatchObject({ kind: 'adjustment', quantity: 5, on_hand_after: 15, reserved_after: 0, reason: 'delivery', order_id: null, actor_type: 'api_key', variant_id: variant.id });
    const set = await api('POST', path, { token: apiKey, body: { set_to: 2, reason: 'count', expected_on_hand: 15 } });
    expect(set.body.movement).toMatchObject({ quantity: -13, on_hand_after: 2 });
    expect(set.body.variant.inventory.low_stock).toBe(true);
    expectProblem(await api('POST', path, { token: apiKey, body: { delta: 1, reason: 'stale', expected_on_hand: 15 } }), 'conflict');
    expectProblem(await api('POST', path, { token: apiKey, body: { delta: -3, reason: 'too many' } }), 'invalid_request');
    expectProblem(await api('POST', path, { token: apiKey, body: { delta: 1, set_to: 1, reason: 'both' } }), 'invalid_request');
    expectProblem(await api('POST', path, { token: apiKey, body: { delta: 1 } }), 'invalid_request');
    expectProblem(await api('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${uuidv7()}/stock`, { token: apiKey, body: { delta: 1, reason: 'x' } }), 'not_found');

    const log = await api('GET', `/v1/clients/${client.id}/stock_movements?variant_id=${variant.id}`, { token: apiKey });
    expect(log.body.data.map((m: { quantity: number; on_hand_after: number; kind: string }) => [m.kind, m.quantity, m.on_hand_after])).toEqual([
      ['adjustment', -13, 2],
      ['adjustment', 5, 15],
      ['restock', 10, 10],
    ]);
    const all = await api('GET', `/v1/clients/${client.id}/stock_movements?limit=1`, { token: apiKey });
    expect(all.body.data).toHaveLength(1);
    expect(all.body.next_cursor).toEqual(expect.any(String));
  });
});

/** Every property name a schema declares, at any depth. */
function declared(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((item) => declared(item, into));
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties') Object.keys(value as object).forEach((name) => into.add(name));
      declared(value, into);
    }
  }
  return into;
}

type JsonSchema = Record<string, unknown>;

/** The property paths of a zod schema's JSON Schema (`inventory.on_hand`), components followed. */
function paths(zodSchema: z.core.$ZodType): string[] {
  const root = z.toJSONSchema(zodSchema) as JsonSchema;
  const defs = (root.$defs ?? {}) as Record<string, JsonSchema>;
  const resolve = (schema: JsonSchema): JsonSchema => (typeof schema.$ref === 'string' ? resolve(defs[schema.$ref.replace('#/$defs/', '')]!) : schema);
  const walk = (schema: JsonSchema, prefix: string): string[] =>
    Object.entries((resolve(schema).properties ?? {}) as Record<string, JsonSchema>).flatMap(([name, inner]) => [`${prefix}${name}`, ...walk(inner, `${prefix}${name}.`)]);
  return walk(root, '');
}

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => keysOf(item, into));
  else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) keysOf(inner, into).add(key);
  return into;
}

describe('the shopper view', () => {
  // Merchant-only: the fields the merchant's variant declares and the shopper's does not (a field
  // inside a merchant-only one goes with it).
  const shopperPaths = new Set(paths(shopperSchemas.exploreVariant));
  const onlyPaths = paths(schemas.variant).filter((path) => !shopperPaths.has(path));
  const merchantOnly = onlyPaths.filter((path) => !onlyPaths.some((outer) => path.startsWith(`${outer}.`))).map((path) => path.split('.').pop()!);
  const exploreRoutes = Object.values(shopperRoutes);

  it('is derived from the schemas: the merchant-only fields are what the spec names, and no Explore response schema declares one', () => {
    expect([...merchantOnly].sort()).toEqual(['available', 'cost_amount', 'low_stock_threshold', 'markup', 'on_hand', 'reserved']);
    expect(exploreRoutes.length).toBe(3);
    for (const route of exploreRoutes) {
      const found = [...declared(z.toJSONSchema(route.response.body, { unrepresentable: 'any' }))].filter((name) => merchantOnly.includes(name));
      expect(found, route.operationId).toEqual([]);
    }
  });

  it('shows every field spec part 2 lists for a client, an offering and a variant, but cost, markup and stock counts', async () => {
    const spec = {
      client: ['id', 'merchant_id', 'org_alias', 'display_name', 'category', 'description', 'logo_url', 'commission_bps', 'status', 'approved_at', 'created_at'],
      offering: ['id', 'client_id', 'kind', 'title', 'description', 'image_url', 'amount', 'interval', 'metadata', 'commission_bps', 'category_id', 'options', 'markup', 'variants', 'status', 'created_at', 'updated_at'],
      variant: ['id', 'offering_id', 'sku', 'barcode', 'option_values', 'position', 'pricing_mode', 'cost_amount', 'markup', 'amount', 'image_url', 'inventory', 'status', 'created_at', 'updated_at'],
      inventory: ['track_inventory', 'in_stock', 'low_stock', 'allow_backorder', 'on_hand', 'reserved', 'available', 'low_stock_threshold'],
    };
    const merchantOnlyBySpec = new Set(['cost_amount', 'markup', 'on_hand', 'reserved', 'available', 'low_stock_threshold']);
    const shown = (fields: string[]) => fields.filter((field) => !merchantOnlyBySpec.has(field)).sort();
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id, { status: 'published', markup: { kind: 'percent', value: 10 }, metadata: { season: 'summer' } });
    const detail = await api('GET', `/v1/explore/clients/${client.id}`, { token: shopper });
    const one = await api('GET', `/v1/explore/offerings/${offering.id}`, { token: shopper });
    const listed = (await api('GET', '/v1/explore/clients?limit=100', { token: shopper })).body.data.find((c: { id: string }) => c.id === client.id);
    for (const answer of [detail.body.client, listed]) expect(Object.keys(answer).sort()).toEqual(shown(spec.client));
    for (const answer of [detail.body.offerings[0], one.body]) {
      expect(Object.keys(answer).sort()).toEqual(shown(spec.offering));
      expect(answer).toMatchObject({ metadata: { season: 'summer' }, commission_bps: 0, status: 'published', created_at: offering.created_at });
      for (const variant of answer.variants) {
        expect(Object.keys(variant).sort()).toEqual(shown(spec.variant));
        expect(Object.keys(variant.inventory).sort()).toEqual(shown(spec.inventory));
      }
    }
    expect(detail.body.client).toMatchObject({ merchant_id: client.merchantId, status: 'active', approved_at: expect.any(String) });
    expect(one.body.variants[1]).toMatchObject({ pricing_mode: 'markup', status: 'active', barcode: null });
  });

  it('carries no merchant-only field in any Explore answer', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id, { status: 'published', markup: { kind: 'fixed', value: 5 } });
    const answers = [
      await api('GET', `/v1/explore/clients/${client.id}`, { token: shopper }),
      await api('GET', `/v1/explore/offerings/${offering.id}`, { token: shopper }),
      await api('GET', '/v1/explore/clients?limit=100', { token: shopper }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect([...keysOf(answer.body)].filter((key) => merchantOnly.includes(key))).toEqual([]);
    }
    // The merchant's own view of the same offering has them.
    const merchantView = await api('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey });
    expect([...keysOf(merchantView.body)]).toEqual(expect.arrayContaining(['cost_amount', 'markup', 'on_hand', 'reserved', 'available']));
  });
});

describe('Explore', () => {
  it('shows active clients with published offerings, only published offerings, and never cost, markup or counts', async () => {
    const client = await clientOf(base, apiKey, { category: `cat-${uuidv7().slice(-6)}`, description: 'Hand-made tees' });
    const draft = await offeringOf(client.id);
    const shown = await offeringOf(client.id, { status: 'published', title: 'Hoodie' });
    // No published offering yet for this one: not listed.
    const empty = await clientOf(base, apiKey);

    const detail = await api('GET', `/v1/explore/clients/${client.id}`, { token: shopper });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.client).toEqual({
      id: client.id,
      merchant_id: client.merchantId,
      org_alias: client.alias,
      display_name: `Shop ${client.alias}`,
      category: expect.any(String),
      description: 'Hand-made tees',
      logo_url: null,
      commission_bps: 0,
      status: 'active',
      approved_at: expect.any(String),
      created_at: expect.any(String),
    });
    expect(detail.body.offerings.map((o: { id: string }) => o.id)).toEqual([shown.id]);
    expect(detail.body.offerings[0].variants[0]).toEqual({
      id: shown.variants[0].id,
      offering_id: shown.id,
      sku: shown.variants[0].sku,
      barcode: null,
      option_values: ['S'],
      position: 1,
      pricing_mode: 'manual',
      amount: 1_500,
      image_url: null,
      inventory: { track_inventory: true, in_stock: true, low_stock: false, allow_backorder: false },
      status: 'active',
      created_at: shown.variants[0].created_at,
      updated_at: shown.variants[0].updated_at,
    });
    expectProblem(await api('GET', `/v1/explore/offerings/${draft.id}`, { token: shopper }), 'offering_not_found');
    expect((await api('GET', `/v1/explore/offerings/${shown.id}`, { token: shopper })).body.title).toBe('Hoodie');

    const category = detail.body.client.category;
    const byCategory = await api('GET', `/v1/explore/clients?category=${category}`, { token: shopper });
    expect(byCategory.body.data.map((c: { id: string }) => c.id)).toEqual([client.id]);
    const byText = await api('GET', `/v1/explore/clients?q=HAND-MADE`, { token: shopper });
    expect(byText.body.data.map((c: { id: string }) => c.id)).toContain(client.id);
    const everyone = await api('GET', '/v1/explore/clients?limit=100', { token: shopper });
    expect(everyone.body.data.map((c: { id: string }) => c.id)).not.toContain(empty.id);
  });

  it('answers client_not_found for a pending client and a client of another tenant', async () => {
    const pending = await clientOf(base, apiKey, { approve: false });
    await offeringOf(pending.id, { status: 'published' });
    expectProblem(await api('GET', `/v1/explore/clients/${pending.id}`, { token: shopper }), 'client_not_found');
    const other = await api('POST', '/v1/tenants', { token: platformStaff, key: uuidv7(), body: { name: 'Other', currency: 'USD' } });
    const otherKey = await apiKeyFor(platform, other.body.id, [...TENANT_SCOPES]);
    const foreign = await clientOf(base, otherKey);
    expectProblem(await api('GET', `/v1/explore/clients/${foreign.id}`, { token: shopper }), 'client_not_found');
    expectProblem(await api('GET', `/v1/clients/${foreign.id}`, { token: apiKey }), 'client_not_found');
  });

  it('hides a client moderated by platform staff, and shows it again', async () => {
    const client = await clientOf(base, apiKey);
    const offering = await offeringOf(client.id, { status: 'published' });
    expect((await api('GET', `/v1/explore/clients/${client.id}`, { token: shopper })).status).toBe(200);
    const hidden = await api('POST', `/v1/platform/clients/${client.id}/hide`, { token: platformStaff });
    expect(hidden.status, hidden.text).toBe(200);
    expect(hidden.body.hidden).toBe(true);
    expectProblem(await api('GET', `/v1/explore/clients/${client.id}`, { token: shopper }), 'client_not_found');
    expectProblem(await api('GET', `/v1/explore/offerings/${offering.id}`, { token: shopper }), 'client_not_found');
    expect((await api('GET', '/v1/explore/clients?limit=100', { token: shopper })).body.data.map((c: { id: string }) => c.id)).not.toContain(client.id);
    // The merchant still manages its catalog.
    expect((await api('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, { token: apiKey })).status).toBe(200);
    expectProblem(await api('POST', `/v1/platform/clients/${client.id}/hide`, { token: apiKey }), 'forbidden');

    expect((await api('POST', `/v1/platform/clients/${client.id}/unhide`, { token: platformStaff })).body.hidden).toBe(false);
    expect((await api('GET', `/v1/explore/clients/${client.id}`, { token: shopper })).status).toBe(200);
    expectProblem(await api('POST', `/v1/platform/clients/${uuidv7()}/hide`, { token: platformStaff }), 'client_not_found');
  });
});

describe('product events', () => {
  it("reach the tenant's endpoints and the client's own merchant endpoints, and no other client's", async () => {
    const [mine, theirs] = [await clientOf(base, apiKey), await clientOf(base, apiKey)];
    const register = async (path: string, route: string) => {
      const created = await api('POST', route, { token: apiKey, body: { url: receiver.route(path), event_filters: ['product.*', 'import.*'] } });
      expect(created.status, created.text).toBe(201);
    };
    await register('/tenant', '/v1/webhook_endpoints');
    await register('/mine', `/v1/clients/${mine.id}/webhook_endpoints`);
    await register('/theirs', `/v1/clients/${theirs.id}/webhook_endpoints`);

    const offering = await offeringOf(mine.id);
    await api('PATCH', `/v1/clients/${mine.id}/offerings/${offering.id}`, { token: apiKey, body: { status: 'published' } });
    await api('PATCH', `/v1/clients/${mine.id}/offerings/${offering.id}`, { token: apiKey, body: { status: 'archived' } });
    // Deliveries may arrive in any order: an event's id (UUIDv7) says when it happened.
    const types = (path: string) =>
      receiver
        .requests(path)
        .map((request) => JSON.parse(request.body) as { id: string; type: string; client_id?: string; data: { offering: { id: string } } })
        .sort((a, b) => (a.id < b.id ? -1 : 1));
    await until(() => types('/mine').length >= 3 && types('/tenant').length >= 3, 15_000, 'product events');
    await platform.streams!.settle();
    await platform.queues.drain();

    expect(types('/mine').map((event) => event.type)).toEqual(['product.created', 'product.updated', 'product.archived']);
    for (const event of types('/mine')) expect(event).toMatchObject({ client_id: mine.id, data: { offering: { id: offering.id } } });
    expect(types('/tenant').map((event) => event.type)).toEqual(['product.created', 'product.updated', 'product.archived']);
    expect(types('/theirs')).toEqual([]);
  });
});
