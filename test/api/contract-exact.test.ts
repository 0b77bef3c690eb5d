import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { fundUser } from '../support/money';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * The contract made exact: defects independent tools (Schemathesis, a line-by-line spec audit)
 * found, each shown over HTTP as a client meets it.
 */

let platform: Platform;
let tenantId: string;
let apiKey: string;
const api = apiClient(() => platform.urls.public, () => apiKey);

beforeAll(async () => {
  platform = await startTestPlatform();
  const staff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, staff, 'Contract');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
});

afterAll(async () => {
  await platform?.stop();
});

describe('order listings', () => {
  it('filter by every status: paid, canceled and expired as well as open (an order being paid lists as open)', async () => {
    const client = await clientOf(platform.urls.public, apiKey);
    const offering = await api('POST', `/v1/clients/${client.id}/offerings`, { body: { title: 'Tee', status: 'published', variants: [{ sku: `T-${uuidv7().slice(-10)}`, amount: 100, inventory: { on_hand: 10 } }] } });
    const variant = offering.body.variants[0].id as string;
    const shopper = (await api('POST', '/v1/users', { body: { external_id: `s-${uuidv7()}` } })).body.id as string;
    await fundUser(platform, tenantId, shopper, 1_000);
    const order = async () => (await api('POST', '/v1/orders', { key: uuidv7(), body: { client_id: client.id, user_id: shopper, lines: [{ variant_id: variant, quantity: 1 }] } })).body.id as string;
    const [open, paid, canceled] = [await order(), await order(), await order()];
    expect((await api('POST', `/v1/orders/${paid}/pay`, { key: uuidv7() })).status).toBe(200);
    expect((await api('POST', `/v1/orders/${canceled}/cancel`, { key: uuidv7() })).status).toBe(200);

    const listed = async (status: string) => {
      const page = await api('GET', `/v1/orders?status=${status}&user_id=${shopper}`);
      expect(page.status, page.text).toBe(200);
      return page.body.data.map((o: { id: string }) => o.id);
    };
    expect(await listed('open')).toEqual([open]);
    expect(await listed('paid')).toEqual([paid]);
    expect(await listed('canceled')).toEqual([canceled]);
    expect(await listed('expired')).toEqual([]);

    // `limit=` (empty) is the default page, as if absent, not a page of one.
    const empty = await api('GET', `/v1/orders?user_id=${shopper}&limit=`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.data).toHaveLength(3);
  });
});

describe('refusals that name their field', () => {
  it('refuses a points conversion worth more than one posting can move, naming points', async () => {
    expect((await api('PUT', '/v1/rewards/settings', { body: { points_commodity: 'PTS', conversion_rate: { points: 1, cash: 2 ** 45 } } })).status).toBe(200);
    const externalId = `c-${uuidv7()}`;
    const user = (await api('POST', '/v1/users', { body: { external_id: externalId } })).body.id as string;
    const token = await userTokenFor(platform, apiKey, externalId, ['rewards:convert']);
    const refused = await api('POST', `/v1/users/${user}/rewards/convert`, { token, key: uuidv7(), body: { points: 2 } });
    expectProblem(refused, 'invalid_request');
    expect(refused.body.errors).toEqual([{ field: 'points', message: 'too many for one conversion' }]);
  });

  it('refuses a blank push token in the schema the document publishes, naming push_token', async () => {
    const externalId = `d-${uuidv7()}`;
    const user = (await api('POST', '/v1/users', { body: { external_id: externalId } })).body.id as string;
    for (const blank of ['   ', ' token', 'token ']) {
      const refused = await api('POST', '/v1/devices', { body: { user_id: user, platform: 'ios', push_token: blank } });
      expectProblem(refused, 'invalid_request');
      expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(['push_token']);
    }
    const document = (await api('GET', '/openapi.json', { token: undefined })).body;
    const pattern = new RegExp(document.components.schemas.DeviceCreate?.properties?.push_token?.pattern ?? findPushTokenPattern(document));
    expect(pattern.test('   ')).toBe(false);
    expect(pattern.test('fcm:token value')).toBe(true);
  });
});

/** The push_token pattern wherever the document puts the device request's schema. */
function findPushTokenPattern(document: unknown): string {
  const found = JSON.stringify(document).match(/"push_token":\{[^}]*"pattern":("(?:[^"\\]|\\.)*")/);
  if (!found) throw new Error('no push_token pattern in the document');
  return JSON.parse(found[1]!) as string;
}

describe('text fields', () => {
  it('refuse controls, bidirectional overrides and unpaired surrogates anywhere in a body, naming the field, and create nothing', async () => {
    const client = await clientOf(platform.urls.public, apiKey);
    const offerings = async () => (await api('GET', `/v1/clients/${client.id}/offerings`)).body.data.length as number;
    const before = await offerings();
    // Raw JSON text: the escapes reach the server as written.
    const bodies: [string, string][] = [
      ['title', '{"title":"Cheap \\u202Eesnopxe","status":"published","variants":[{"sku":"RLO-1","amount":100}]}'],
      ['description', '{"title":"Tee","description":"nul\\u0000byte","variants":[{"sku":"NUL-1","amount":100}]}'],
      ['variants[0].barcode', '{"title":"Tee","variants":[{"sku":"SUR-1","amount":100,"barcode":"\\ud800"}]}'],
      ['metadata.note', '{"title":"Tee","metadata":{"note":"isolate \\u2067x\\u2069"},"variants":[{"sku":"ISO-1","amount":100}]}'],
    ];
    for (const [field, rawBody] of bodies) {
      const refused = await api('POST', `/v1/clients/${client.id}/offerings`, { rawBody, headers: { 'content-type': 'application/json' } });
      expectProblem(refused, 'invalid_request', field);
      expect(refused.body.errors.map((e: { field: string }) => e.field), field).toEqual([field]);
      // The answer itself is strict JSON a strict parser takes.
      expect(() => JSON.parse(refused.text)).not.toThrow();
    }
    expect(await offerings()).toBe(before);

    const endpoint = await api('POST', '/v1/webhook_endpoints', { rawBody: '{"url":"http://127.0.0.1:9/hook","description":"\\u202Ereversed"}', headers: { 'content-type': 'application/json' } });
    expectProblem(endpoint, 'invalid_request');
    expect(endpoint.body.errors[0].field).toBe('description');

    // Right-to-left text keeps its marks, and a pair of surrogates is just a character.
    const rtl = await api('POST', `/v1/clients/${client.id}/offerings`, { body: { title: '\u200Fשלום 😀', variants: [{ sku: `RTL-${uuidv7().slice(-8)}`, amount: 100 }] } });
    expect(rtl.status, rtl.text).toBe(201);
    expect(rtl.body.title).toBe('\u200Fשלום 😀');
  });
});
