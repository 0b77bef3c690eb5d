import { apiClient, expectProblem } from '../support/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { authRoutes } from '../../shared/wallet/auth/routes';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { uuidv7 } from '../../shared/kernel/ids';
import { systemClock } from '../../shared/kernel/clock';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { getUserRecord } from '../../shared/wallet/tenancy/users';
import { tenancyRoutes } from '../../shared/wallet/tenancy/routes';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { manifestWith, startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';
import { walletLedgerClient } from '../support/wallet';

/** The tenancy routes over HTTP, with real credentials: each refusal code and the tenant boundary. */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let platformStaff: string;
let platformReader: string;
let platformManager: string;
let tenantId: string;
let otherTenantId: string;
let apiKey: string;
let narrowKey: string;
let tenantStaff: string;
let otherKey: string;
let userToken: string;
let userId: string;
let otherUserId: string;

beforeAll(async () => {
  platform = await startTestPlatform({ routes: manifestWith(authRoutes, tenancyRoutes) });
  base = platform.urls.public;
  platformStaff = await staffToken(platform, { role: 'platform' });
  platformReader = await staffToken(platform, { role: 'platform', scopes: ['platform:read'] });
  platformManager = await staffToken(platform, { role: 'platform', scopes: ['platform:manage'] });
  [tenantId, otherTenantId] = [await createTenant(api, platformStaff, 'Tenant A'), await createTenant(api, platformStaff, 'Tenant B')];
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  narrowKey = await apiKeyFor(platform, tenantId, ['users:read']);
  otherKey = await apiKeyFor(platform, otherTenantId, [...TENANT_SCOPES]);
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId });
  userId = (await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'alice' } })).body.id;
  await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'bob' } });
  otherUserId = (await api('POST', '/v1/users', { token: otherKey, body: { external_id: 'alice' } })).body.id;
  userToken = await userTokenFor(platform, apiKey, 'alice', [...TENANT_SCOPES]);
  await topUps();
});

/** Money in both tenants' ledgers, posted as the wallet would (its own ledger credentials). */
async function topUps() {
  const deps = { client: localDocumentClient(platform.dynamodbEndpoint), table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7 };
  const ledger = walletLedgerClient(platform);
  for (const [tenant, user, amount] of [[tenantId, userId, 100], [otherTenantId, otherUserId, 200], [tenantId, userId, 300]] as const) {
    const record = await getTenantRecord(deps, tenant);
    const cash = (await getUserRecord(deps, tenant, user)).cash_account_id;
    await ledger.post(record.ledger_id, { type: 'topup', legs: [{ account_id: record.accounts.funding, direction: 'debit', amount, commodity: 'USD' }, { account_id: cash, direction: 'credit', amount, commodity: 'USD' }] }, uuidv7());
  }
}
afterAll(() => platform?.stop());

describe('POST /v1/tenants', () => {
  it('provisions a tenant for platform staff and answers a retry with the same key with the same tenant', async () => {
    const key = uuidv7();
    const first = await api('POST', '/v1/tenants', { token: platformStaff, body: { name: ' Acme ', currency: 'EUR' }, key });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name: 'Acme', currency: 'EUR', status: 'active', commission_mode: 'deduct', fees: { payment: { bps: 0, flat: 0, min_fee: 0 } } });
    // No cap is an absent max_fee, never null (spec part 2).
    expect(first.body.fees.payment).not.toHaveProperty('max_fee');
    expect(Object.keys(first.body).sort()).toEqual(['commission_mode', 'created_at', 'currency', 'fees', 'id', 'name', 'status']);
    const retry = await api('POST', '/v1/tenants', { token: platformStaff, body: { name: ' Acme ', currency: 'EUR' }, key });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await api('POST', '/v1/tenants', { token: platformStaff, body: { name: 'Other', currency: 'EUR' }, key }), 'idempotency_key_reuse');
  });

  it('refuses every principal but platform staff holding platform:manage with platform_scope_only', async () => {
    const body = { name: 'Nope', currency: 'USD' };
    for (const token of [apiKey, tenantStaff, userToken, platformReader]) {
      expectProblem(await api('POST', '/v1/tenants', { token: token, body, key: uuidv7() }), 'platform_scope_only');
    }
    expect((await api('POST', '/v1/tenants', { token: platformManager, body, key: uuidv7() })).status).toBe(201);
    expectProblem(await api('POST', '/v1/tenants', { body }), 'unauthenticated');
  });

  it('refuses a blank name, a missing body and an unknown currency with invalid_request', async () => {
    const invalid = [
      { body: { name: '   ', currency: 'USD' } },
      { body: { name: '', currency: 'USD' } },
      {},
      { rawBody: '' },
      { body: { name: 'Bad', currency: 'XXQ' } },
      { body: { name: 'Bad', currency: 'usd' } },
      { body: { name: 'x'.repeat(101), currency: 'USD' } },
      { body: { name: 'Extra', currency: 'USD', ledger_id: uuidv7() } },
      { body: { currency: 'USD' } },
      { body: { name: 'Long key', currency: 'USD' }, key: 'k'.repeat(256) },
    ];
    for (const options of invalid) expectProblem(await api('POST', '/v1/tenants', { token: platformStaff, ...options }), 'invalid_request');
  });
});

describe('tenant listing and health', () => {
  it('lists tenants newest first with fee plan for platform:read, and refuses the rest with global_read_only', async () => {
    const result = await api('GET', '/v1/tenants?limit=100', { token: platformReader });
    expect(result.status).toBe(200);
    const ids = result.body.data.map((t: any) => t.id);
    expect(ids.indexOf(otherTenantId)).toBeLessThan(ids.indexOf(tenantId));
    expect(result.body.data[0]).toHaveProperty('fees.topup');
    for (const token of [apiKey, tenantStaff, userToken, platformManager]) expectProblem(await api('GET', '/v1/tenants', { token: token }), 'global_read_only');
  });

  it("reports a tenant's ledger health to platform staff", async () => {
    const result = await api('GET', `/v1/tenants/${tenantId}/health`, { token: platformReader });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ tenant_id: tenantId, currency: 'USD', balanced: true });
    expect(result.body.rows.map((r: any) => `${r.owner_type}/${r.purpose}`)).toEqual(['tenant/funding', 'tenant/revenue', 'user/cash']);
    expectProblem(await api('GET', `/v1/tenants/${uuidv7()}/health`, { token: platformReader }), 'tenant_not_found');
    expectProblem(await api('GET', `/v1/tenants/${tenantId}/health`, { token: apiKey }), 'global_read_only');
  });
});

describe('fee plan', () => {
  it('replaces named paths for an API key and tenant staff, and reads back', async () => {
    const put = await api('PUT', '/v1/fee_plan', { token: apiKey, body: { payment: { bps: 250, flat: 30, min_fee: 0, max_fee: 1_000 }, commission_mode: 'add' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.fees.payment).toEqual({ bps: 250, flat: 30, min_fee: 0, max_fee: 1_000 });
    expect(put.body.commission_mode).toBe('add');
    const staffPut = await api('PUT', '/v1/fee_plan', { token: tenantStaff, body: { payment: { bps: 100, flat: 0, min_fee: 0 } } });
    expect(staffPut.body.fees.payment).toEqual({ bps: 100, flat: 0, min_fee: 0 });
    expect(staffPut.text).not.toContain('"max_fee":null');
    expect((await api('GET', '/v1/fee_plan', { token: apiKey })).body).toEqual(staffPut.body);
    expect((await api('GET', '/v1/fee_plan', { token: otherKey })).body.commission_mode).toBe('deduct');
  });

  it('refuses a user token with forbidden, a key without fees:manage with insufficient_scope, bad rules with invalid_request', async () => {
    expectProblem(await api('PUT', '/v1/fee_plan', { token: userToken, body: { p2p: { bps: 1, flat: 0, min_fee: 0 } } }), 'forbidden');
    expectProblem(await api('GET', '/v1/fee_plan', { token: userToken }), 'forbidden');
    expectProblem(await api('PUT', '/v1/fee_plan', { token: narrowKey, body: { p2p: { bps: 1, flat: 0, min_fee: 0 } } }), 'insufficient_scope');
    expectProblem(await api('PUT', '/v1/fee_plan', { token: platformStaff, body: { p2p: { bps: 1, flat: 0, min_fee: 0 } } }), 'forbidden');
    for (const body of [{ p2p: { bps: 10_001, flat: 0, min_fee: 0 } }, { p2p: { bps: 1, flat: -1, min_fee: 0 } }, { p2p: { bps: 1, flat: 0, min_fee: 9, max_fee: 8 } }, { p2p: { bps: 1, flat: 0.5, min_fee: 0 } }, {}]) {
      expectProblem(await api('PUT', '/v1/fee_plan', { token: apiKey, body }), 'invalid_request');
    }
    expectProblem(await api('PUT', '/v1/fee_plan', { token: apiKey }), 'invalid_request');
  });
});

describe('ledger summary', () => {
  it('answers an API key and refuses a user token with forbidden', async () => {
    const result = await api('GET', '/v1/ledger/summary', { token: apiKey });
    expect(result.status, result.text).toBe(200);
    expect(result.body.currency).toBe('USD');
    expect(result.body.rows).toContainEqual({ owner_type: 'user', purpose: 'cash', commodity: 'USD', balance: 400, accounts: 2 });
    expect(result.body.rows).toContainEqual({ owner_type: 'tenant', purpose: 'funding', commodity: 'USD', balance: -400, accounts: 1 });
    expect(result.body.fee_plan).toHaveProperty('commission_mode');
    expectProblem(await api('GET', '/v1/ledger/summary', { token: userToken }), 'forbidden');
  });
});

describe('users', () => {
  it('creates a user and refuses a taken external_id with conflict naming it', async () => {
    const created = await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'carol', kind: 'business', metadata: { ref: 'x' } } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ external_id: 'carol', kind: 'business', status: 'active', metadata: { ref: 'x' } });
    const again = await api('POST', '/v1/users', { token: tenantStaff, body: { external_id: 'carol' } });
    expectProblem(again, 'conflict');
    expect(again.body.detail).toContain(created.body.id);
    expectProblem(await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'has space' } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/users', { token: userToken, body: { external_id: 'dave' } }), 'forbidden');
  });

  it("answers another tenant's user with 404 user_not_found", async () => {
    expect((await api('GET', `/v1/users/${userId}`, { token: apiKey })).body.external_id).toBe('alice');
    expectProblem(await api('GET', `/v1/users/${otherUserId}`, { token: apiKey }), 'user_not_found');
    expectProblem(await api('GET', `/v1/users/${userId}`, { token: otherKey }), 'user_not_found');
  });

  it('lets a user token see only its own user', async () => {
    const listed = await api('GET', '/v1/users', { token: userToken });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({ data: [expect.objectContaining({ id: userId, external_id: 'alice' })], has_more: false, next_cursor: null });
    expect((await api('GET', `/v1/users/${userId}`, { token: userToken })).status).toBe(200);
    const bob = (await api('GET', '/v1/users?limit=100', { token: apiKey })).body.data.find((u: any) => u.external_id === 'bob');
    expectProblem(await api('GET', `/v1/users/${bob.id}`, { token: userToken }), 'user_not_found');
    expect((await api('GET', '/v1/users?limit=100', { token: apiKey })).body.data.length).toBeGreaterThanOrEqual(2);
  });
});

describe('audit log', () => {
  it("shows the tenant's changes newest first to audit:read, and another tenant's only to platform staff", async () => {
    const own = await api('GET', '/v1/audit_log?limit=100', { token: apiKey });
    expect(own.status, own.text).toBe(200);
    const actions = own.body.data.map((r: any) => r.action);
    expect(actions).toContain('tenant.create');
    expect(actions).toContain('user.create');
    expect(actions[actions.length - 1]).toBe('tenant.create');
    expect(own.body.data[0]).toHaveProperty('request_id');
    expectProblem(await api('GET', `/v1/audit_log?tenant_id=${otherTenantId}`, { token: apiKey }), 'tenant_not_found');
    expectProblem(await api('GET', '/v1/audit_log', { token: narrowKey }), 'insufficient_scope');
    expectProblem(await api('GET', '/v1/audit_log', { token: userToken }), 'forbidden');
    const platformView = await api('GET', `/v1/audit_log?tenant_id=${otherTenantId}`, { token: platformReader });
    expect(platformView.body.data.map((r: any) => r.action)).toContain('tenant.create');
  });
});

describe('platform reads', () => {
  it('lists transactions across tenants for platform:read, clamping limit, and refuses the rest with global_read_only', async () => {
    const result = await api('GET', '/v1/platform/transactions?limit=1000', { token: platformReader });
    expect(result.status, result.text).toBe(200);
    // A JSON array (spec part 4 item 19), newest first; the cursor is the last id seen.
    expect(Array.isArray(result.body)).toBe(true);
    expect(result.body.map((t: any) => [t.tenant_name, t.legs[1].amount])).toEqual([['Tenant A', 300], ['Tenant B', 200], ['Tenant A', 100]]);
    const one = await api('GET', '/v1/platform/transactions?limit=-3', { token: platformReader });
    expect(one.body).toHaveLength(1);
    expect(one.body[0].id).toBe(result.body[0].id);
    const next = await api('GET', `/v1/platform/transactions?limit=0&cursor=${one.body[0].id}`, { token: platformReader });
    expect(next.body.map((t: any) => t.id)).toEqual([result.body[1].id]);
    const rest = await api('GET', `/v1/platform/transactions?cursor=${next.body[0].id}`, { token: platformReader });
    expect(rest.body.map((t: any) => t.id)).toEqual([result.body[2].id]);
    const other = await api('GET', `/v1/platform/transactions?tenant_id=${otherTenantId}&type=topup`, { token: platformReader });
    expect(other.body.map((t: any) => t.tenant_id)).toEqual([otherTenantId]);
    expectProblem(await api('GET', `/v1/platform/transactions?tenant_id=${tenantId}&cursor=${other.body[0].id}`, { token: platformReader }), 'invalid_request');
    for (const token of [apiKey, tenantStaff, userToken, platformManager]) expectProblem(await api('GET', '/v1/platform/transactions', { token: token }), 'global_read_only');
    expectProblem(await api('GET', `/v1/platform/transactions?cursor=${uuidv7()}`, { token: platformReader }), 'invalid_request');
    expectProblem(await api('GET', '/v1/platform/transactions?cursor=not-a-uuid', { token: platformReader }), 'invalid_request');
    expectProblem(await api('GET', '/v1/platform/transactions?tenant_id=nope', { token: platformReader }), 'invalid_request');
  });

  it('lists users across tenants with a free-text query, for platform:read only', async () => {
    const result = await api('GET', '/v1/platform/users?q=ALI', { token: platformReader });
    expect(result.status, result.text).toBe(200);
    expect(result.body.data.map((u: any) => u.tenant_id).sort()).toEqual([tenantId, otherTenantId].sort());
    expect(result.body.data[0]).toMatchObject({ external_id: 'alice', tenant_name: expect.any(String) });
    expectProblem(await api('GET', '/v1/platform/users', { token: apiKey }), 'global_read_only');
  });
});
