import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { routes } from '../../shared/routes';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * Idempotency-Key on every POST, Stripe's way (issue 32 item 2), over HTTP: the POSTs that move no
 * money accept and honour the key through the handler factory (rule `keptBy: 'answer'`): a retry
 * answers the first answer byte for byte and makes nothing twice; the key with another request is
 * `idempotency_key_reuse`; another caller's key never answers.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let apiKey: string;
let otherTenantKey: string;
let tenantStaff: string;

async function allMerchants(token: string): Promise<{ id: string; name: string }[]> {
  const found: { id: string; name: string }[] = [];
  let cursor: string | null = null;
  do {
    const page = await api('GET', `/v1/merchants?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect(page.status, page.text).toBe(200);
    found.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return found;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  const platformStaff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, platformStaff, 'Idempotency A');
  const otherTenant = await createTenant(api, platformStaff, 'Idempotency B');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  otherTenantKey = await apiKeyFor(platform, otherTenant, [...TENANT_SCOPES]);
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId });
});

afterAll(async () => {
  await platform?.stop();
});

describe('the manifest', () => {
  it('gives every POST with a caller an Idempotency-Key rule; required ones are the operation’s own', () => {
    for (const route of routes.filter((r) => r.method === 'POST' && r.access !== 'public')) {
      expect(route.idempotency, route.operationId).toBeDefined();
      if (route.idempotency!.required) expect(route.idempotency!.keptBy, route.operationId).toBe('operation');
    }
  });
});

describe('a POST that moves no money, retried with its Idempotency-Key', () => {
  it('a retried merchant creation makes one merchant and answers the first answer byte for byte', async () => {
    const key = uuidv7();
    const name = `shop ${uuidv7()}`;
    const first = await api('POST', '/v1/merchants', { token: apiKey, body: { name }, key });
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same request with other whitespace and key order is the same request.
    const again = await api('POST', '/v1/merchants', { token: apiKey, rawBody: `{ "name" : ${JSON.stringify(name)} }`, headers: { 'content-type': 'application/json' }, key });
    expect(again.status, again.text).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await allMerchants(apiKey)).filter((m) => m.name === name).map((m) => m.id)).toEqual([first.body.id]);
  });

  it('a retried user creation makes one user', async () => {
    const key = uuidv7();
    const externalId = `u-${uuidv7()}`;
    const first = await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId, kind: 'consumer' }, key });
    expect(first.status, first.text).toBe(201);
    const again = await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId, kind: 'consumer' }, key });
    expect(again.status, again.text).toBe(201);
    expect(again.text).toBe(first.text);
    // Without the key, the same body is a second creation: refused as the duplicate it is.
    const unkeyed = await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId, kind: 'consumer' } });
    expect(unkeyed.status).not.toBe(201);
  });

  it('remembers a refusal like a success: the retry answers the same problem, request id included', async () => {
    const key = uuidv7();
    const externalId = `u-${uuidv7()}`;
    expect((await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId, kind: 'consumer' } })).status).toBe(201);
    const refused = await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId, kind: 'consumer' }, key });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    const again = await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId, kind: 'consumer' }, key });
    expect(again.status).toBe(refused.status);
    expect(again.text).toBe(refused.text);
    expect(again.headers.get('content-type')).toBe('application/problem+json');
  });

  it('refuses the key with another body: idempotency_key_reuse, and nothing is made', async () => {
    const key = uuidv7();
    const name = `shop ${uuidv7()}`;
    expect((await api('POST', '/v1/merchants', { token: apiKey, body: { name }, key })).status).toBe(201);
    const other = `shop ${uuidv7()}`;
    expectProblem(await api('POST', '/v1/merchants', { token: apiKey, body: { name: other }, key }), 'idempotency_key_reuse');
    expect((await allMerchants(apiKey)).some((m) => m.name === other)).toBe(false);
    // The key of one route is not another route's.
    expectProblem(await api('POST', '/v1/users', { token: apiKey, body: { external_id: `u-${uuidv7()}`, kind: 'consumer' }, key }), 'idempotency_key_reuse');
  });

  it('another caller’s key does not answer: another tenant makes its own; another caller of the tenant is refused', async () => {
    const key = uuidv7();
    const name = `shop ${uuidv7()}`;
    const first = await api('POST', '/v1/merchants', { token: apiKey, body: { name }, key });
    expect(first.status, first.text).toBe(201);
    const elsewhere = await api('POST', '/v1/merchants', { token: otherTenantKey, body: { name }, key });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    expect(elsewhere.body.id).not.toBe(first.body.id);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expectProblem(await api('POST', '/v1/merchants', { token: tenantStaff, body: { name }, key }), 'idempotency_key_reuse');
    expect((await allMerchants(apiKey)).filter((m) => m.name === name)).toHaveLength(1);
  });

  it('keeps the bounds of the key: an over-long key is a 400 and makes nothing', async () => {
    const name = `shop ${uuidv7()}`;
    expectProblem(await api('POST', '/v1/merchants', { token: apiKey, body: { name }, key: 'k'.repeat(256) }), 'invalid_request');
    expect((await allMerchants(apiKey)).some((m) => m.name === name)).toBe(false);
  });

  it('honours the key on a client and an offering too', async () => {
    const merchant = await api('POST', '/v1/merchants', { token: apiKey, body: { name: 'Books' } });
    const clientBody = { merchant_id: merchant.body.id, org_alias: `books-${uuidv7().slice(-8)}`, display_name: 'Books', category: 'books' };
    const clientKey = uuidv7();
    const client = await api('POST', '/v1/clients', { token: apiKey, body: clientBody, key: clientKey });
    expect(client.status, client.text).toBe(201);
    // Without the key this alias would be a conflict; with it, the first answer.
    const clientAgain = await api('POST', '/v1/clients', { token: apiKey, body: clientBody, key: clientKey });
    expect(clientAgain.text).toBe(client.text);
    const key = uuidv7();
    const body = { title: `Tee ${uuidv7()}` };
    const first = await api('POST', `/v1/clients/${client.body.id}/offerings`, { token: apiKey, body, key });
    expect(first.status, first.text).toBe(201);
    const again = await api('POST', `/v1/clients/${client.body.id}/offerings`, { token: apiKey, body, key });
    expect(again.text).toBe(first.text);
    const listed = await api('GET', `/v1/clients/${client.body.id}/offerings`, { token: apiKey });
    expect(listed.body.data.filter((o: { title: string }) => o.title === body.title)).toHaveLength(1);
  });
});
