import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem, idsOf } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';
import { pause } from '../support/time';

/**
 * Listings, Stripe-shaped (issue 32 item 4), over HTTP: `has_more` beside `next_cursor` on every
 * page, and `created_after`/`created_before` (exclusive bounds) on listings whose objects have
 * `created_at`. The spec's bare arrays stay arrays.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let apiKey: string;
let otherKey: string;
let platformStaff: string;
let tenantStaff: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  platformStaff = await staffToken(platform, { role: 'platform' });
  const tenantA = await createTenant(api, platformStaff, 'Listings A');
  apiKey = await apiKeyFor(platform, tenantA, [...TENANT_SCOPES]);
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId: tenantA });
  otherKey = await apiKeyFor(platform, await createTenant(api, platformStaff, 'Listings B'), [...TENANT_SCOPES]);
});

afterAll(async () => {
  await platform?.stop();
});

/** Three objects made one after another (a few ms apart, so their created_at differ), oldest first. */
async function threeOf(create: () => Promise<{ id: string; created_at: string }>) {
  const made: { id: string; created_at: string }[] = [];
  for (let n = 0; n < 3; n += 1) {
    made.push(await create());
    await pause(5);
  }
  return made;
}

describe('has_more beside next_cursor', () => {
  it('is true exactly while next_cursor is not null, page after page', async () => {
    await threeOf(async () => (await api('POST', '/v1/merchants', { token: otherKey, body: { name: `m ${uuidv7()}` } })).body);
    let cursor: string | null = null;
    const seen: string[] = [];
    let pages = 0;
    do {
      const page = await api('GET', `/v1/merchants?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: otherKey });
      expect(page.status, page.text).toBe(200);
      expect(Object.keys(page.body)).toEqual(['data', 'has_more', 'next_cursor']);
      expect(page.body.has_more).toBe(page.body.next_cursor !== null);
      seen.push(...idsOf(page.body.data));
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(3);
  });

  it('is on the platform listings and the reconciliation page too; the spec’s bare arrays stay arrays', async () => {
    const tenants = await api('GET', '/v1/tenants?limit=1', { token: platformStaff });
    expect(tenants.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const reconciliation = await api('GET', '/v1/ledger/reconciliation', { token: apiKey });
    expect(reconciliation.status, reconciliation.text).toBe(200);
    expect(reconciliation.body.has_more).toBe(reconciliation.body.next_cursor !== null);
    const endpoints = await api('GET', '/v1/webhook_endpoints', { token: apiKey });
    expect(Array.isArray(endpoints.body)).toBe(true);
  });
});

describe('created_after and created_before', () => {
  const cases: [string, string, (key: string) => Promise<{ id: string; created_at: string }>, (() => string)?][] = [
    ['merchants', '/v1/merchants', async (key) => (await api('POST', '/v1/merchants', { token: key, body: { name: `m ${uuidv7()}` } })).body],
    ['users', '/v1/users', async (key) => (await api('POST', '/v1/users', { token: key, body: { external_id: `u-${uuidv7()}` } })).body],
    [
      'API keys',
      '/v1/api_keys',
      async (token) => {
        const made = await api('POST', '/v1/api_keys', { token, body: { name: `k ${uuidv7()}`, scopes: ['users:read'] } });
        expect(made.status, made.text).toBe(201);
        return made.body;
      },
      () => tenantStaff,
    ],
  ];
  for (const [label, path, create, caller] of cases) {
    it(`bound ${label} by creation time, exclusively, with Z or an offset`, async () => {
      const token = caller?.() ?? apiKey;
      const [first, second, third] = await threeOf(() => create(token));
      const inRange = async (query: string) => {
        const page = await api('GET', `${path}?limit=100&${query}`, { token });
        expect(page.status, page.text).toBe(200);
        return idsOf(page.body.data).filter((id) => [first!.id, second!.id, third!.id].includes(id));
      };
      expect(await inRange(`created_after=${first!.created_at}`)).toEqual([third!.id, second!.id]);
      expect(await inRange(`created_before=${third!.created_at}`)).toEqual([second!.id, first!.id]);
      expect(await inRange(`created_after=${first!.created_at}&created_before=${third!.created_at}`)).toEqual([second!.id]);
      // The same instant written with an offset.
      const shifted = new Date(Date.parse(first!.created_at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      expect(await inRange(`created_after=${encodeURIComponent(shifted)}`)).toEqual([third!.id, second!.id]);
      expect(await inRange(`created_after=${third!.created_at}`)).toEqual([]);
    });
  }

  it('bounds the catalog’s listings too, and another tenant’s objects never appear', async () => {
    const clients = await threeOf(async () => {
      const merchant = (await api('POST', '/v1/merchants', { token: apiKey, body: { name: 'Books' } })).body;
      const made = await api('POST', '/v1/clients', { token: apiKey, body: { merchant_id: merchant.id, org_alias: `c-${uuidv7().slice(-10)}`, display_name: 'C', category: 'books' } });
      expect(made.status, made.text).toBe(201);
      return made.body;
    });
    const page = await api('GET', `/v1/clients?limit=100&created_after=${clients[0]!.created_at}&created_before=${clients[2]!.created_at}`, { token: apiKey });
    expect(idsOf(page.body.data)).toEqual([clients[1]!.id]);
    const elsewhere = await api('GET', `/v1/clients?limit=100&created_after=${clients[0]!.created_at}`, { token: otherKey });
    expect(idsOf(elsewhere.body.data)).not.toContain(clients[1]!.id);
  });

  it('refuses what is not an ISO 8601 date-time: 400, naming the parameter', async () => {
    for (const value of ['yesterday', '2026-01-01', '1700000000']) {
      const result = await api('GET', `/v1/merchants?created_after=${value}`, { token: apiKey });
      expectProblem(result, 'invalid_request', value);
      expect(result.body.errors, value).toEqual([expect.objectContaining({ field: 'query.created_after' })]);
    }
  });
});
