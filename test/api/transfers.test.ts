import { apiClient, expectProblem } from '../support/http';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import type { LedgerClient } from '../../shared/ledger-client/client';
import { uuidv7 } from '../../shared/kernel/ids';
import { getUserRecord } from '../../shared/wallet/tenancy/users';
import { transferRoutes } from '../../shared/wallet/transfers/routes';
import { createTransfer } from '../../shared/wallet/transfers/transfers';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import type { WalletDeps } from '../../shared/wallet/deps';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { manifestWith, startTestPlatform, type CallResult } from '../support/platform';
import { storedEvents } from '../support/events';
import { balancesOf, createTenant, newUser } from '../support/tenants';
import { fundUser } from '../support/money';
import { walletDeps, walletLedgerClient } from '../support/wallet';

/**
 * Balances, transfers, transactions, limits and credit lines over HTTP with real credentials.
 * Money enters wallets as ledger postings from the tenant's funding account (the wallet's own
 * ledger credentials), standing in for top-ups.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let documents: DocumentClient;
let ledger: LedgerClient;
let platformStaff: string;
let tenantId: string;
let otherTenantId: string;
let apiKey: string;
let otherKey: string;
let tenantStaff: string;

const transfer = (token: string, body: Record<string, unknown>, key = uuidv7()) => api('POST', '/v1/transfers', { token: token, body, key });

beforeAll(async () => {
  platform = await startTestPlatform({ routes: manifestWith(transferRoutes) });
  base = platform.urls.public;
  documents = localDocumentClient(platform.dynamodbEndpoint);
  ledger = walletLedgerClient(platform);
  platformStaff = await staffToken(platform, { role: 'platform' });
  [tenantId, otherTenantId] = [await createTenant(api, platformStaff, 'Transfers A'), await createTenant(api, platformStaff, 'Transfers B')];
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  otherKey = await apiKeyFor(platform, otherTenantId, [...TENANT_SCOPES]);
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId });
  const plan = await api('PUT', '/v1/fee_plan', { token: apiKey, body: { p2p: { bps: 100, flat: 5, min_fee: 10, max_fee: 500 } } });
  expect(plan.status, plan.text).toBe(200);
});

afterAll(async () => {
  await platform?.stop();
});

describe('POST /v1/transfers', () => {
  it('moves the amount to the receiver, charges the sender the p2p fee on top, and credits it to revenue', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 10_000);
    const result = await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 2_000, description: 'rent', metadata: { ref: 'r-1' } });
    expect(result.status, result.text).toBe(201);
    // 1 % of 2 000 = 20, plus 5 flat: 25 (inside min 10 and max 500).
    expect(result.body).toMatchObject({ from_user_id: alice.id, to_user_id: bob.id, amount: 2_000, fee: 25, currency: 'USD', status: 'completed', description: 'rent', metadata: { ref: 'r-1' } });
    expect(Object.keys(result.body).sort()).toEqual(['amount', 'created_at', 'currency', 'description', 'fee', 'from_user_id', 'id', 'ledger_transaction_id', 'metadata', 'status', 'to_user_id']);
    expect(await balancesOf(api, alice.id, apiKey)).toEqual({ user_id: alice.id, currency: 'USD', available: 7_975, pending: 0, posted: 7_975, credit_limit: 0 });
    expect(await balancesOf(api, bob.id, apiKey)).toMatchObject({ available: 2_000, posted: 2_000 });
    expect((await api('GET', `/v1/transfers/${result.body.id}`, { token: apiKey })).body).toEqual(result.body);
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'transfer.completed')).filter((e) => e.data.transfer.id === result.body.id).map((e) => e.data)).toEqual([{ transfer: result.body }]);
  });

  it('keeps metadata keys named like Object.prototype members, and refuses __proto__ with a 400 that changes nothing', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 1_000);
    const metadata = { constructor: 'c', toString: 't', hasOwnProperty: 'h', valueOf: 'v' };
    const result = await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 100, metadata });
    expect(result.status, result.text).toBe(201);
    expect(result.body.metadata).toEqual(metadata);
    expect((await api('GET', `/v1/transfers/${result.body.id}`, { token: apiKey })).body.metadata).toEqual(metadata);
    const before = await balancesOf(api, alice.id, apiKey);
    const proto = await api('POST', '/v1/transfers', {
      token: apiKey,
      key: uuidv7(),
      headers: { 'content-type': 'application/json' },
      rawBody: `{"from_user_id":"${alice.id}","to_user_id":"${bob.id}","amount":100,"metadata":{"__proto__":"x"}}`,
    });
    expectProblem(proto, 'invalid_request');
    expect(proto.body.detail).toContain('__proto__');
    expect(await balancesOf(api, alice.id, apiKey)).toEqual(before);
  });

  it('answers a retry with the same key byte for byte and moves nothing more; another body with that key is idempotency_key_reuse', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 1_000);
    const key = uuidv7();
    const body = { from_user_id: alice.id, to_user_id: bob.id, amount: 100 };
    const first = await transfer(apiKey, body, key);
    expect(first.status).toBe(201);
    const retry = await transfer(apiKey, body, key);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await balancesOf(api, alice.id, apiKey)).toMatchObject({ available: 1_000 - 110 });
    expectProblem(await transfer(apiKey, { ...body, amount: 101 }, key), 'idempotency_key_reuse');
  });

  it('refuses insufficient funds with 422 and remembers the refusal under the key', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 500);
    const key = uuidv7();
    // 495 + a fee of 10 (the minimum) is 505: more than alice has.
    const first = await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 495 }, key);
    expectProblem(first, 'insufficient_funds');
    const retry = await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 495 }, key);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('content-type')).toBe('application/problem+json');
    expect(await balancesOf(api, alice.id, apiKey)).toMatchObject({ available: 500 });
    expect((await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 490 })).status).toBe(201);
    expect(await balancesOf(api, alice.id, apiKey)).toMatchObject({ available: 0 });
  });

  it('lets a user token send its own money without naming itself', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 1_000);
    const token = await userTokenFor(platform, apiKey, alice.externalId, ['transfers:write', 'balances:read']);
    const result = await transfer(token, { to_user_id: bob.id, amount: 300 });
    expect(result.status, result.text).toBe(201);
    expect(result.body).toMatchObject({ from_user_id: alice.id, to_user_id: bob.id, amount: 300, fee: 10 });
    expect(await balancesOf(api, alice.id, token)).toMatchObject({ available: 690 });
  });

  it("keeps a user's Idempotency-Key hers: the same key from another caller is idempotency_key_reuse, never her transfer", async () => {
    const [alice, bob, carol] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 1_000);
    await fundUser(platform, tenantId, carol.id, 1_000);
    const [aliceToken, carolToken] = [
      await userTokenFor(platform, apiKey, alice.externalId, ['transfers:write', 'balances:read']),
      await userTokenFor(platform, apiKey, carol.externalId, ['transfers:write', 'balances:read']),
    ];
    const key = uuidv7();
    const hers = await transfer(aliceToken, { to_user_id: bob.id, amount: 300 }, key);
    expect(hers.status, hers.text).toBe(201);

    // Another user, and the tenant's own key sending the very transfer she made: neither gets her answer.
    expectProblem(await transfer(carolToken, { to_user_id: bob.id, amount: 300 }, key), 'idempotency_key_reuse');
    expectProblem(await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 300 }, key), 'idempotency_key_reuse');
    expect(await balancesOf(api, carol.id, apiKey)).toMatchObject({ available: 1_000 });
    expect((await transfer(aliceToken, { to_user_id: bob.id, amount: 300 }, key)).text).toBe(hers.text);
  });

  it('refuses a missing key, a missing sender, the same user, floats and non-positive amounts with invalid_request', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    expectProblem(await api('POST', '/v1/transfers', { token: apiKey, body: { from_user_id: alice.id, to_user_id: bob.id, amount: 1 } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/transfers', { token: apiKey, body: { from_user_id: alice.id, to_user_id: bob.id, amount: 1 }, key: 'k'.repeat(256) }), 'invalid_request');
    expectProblem(await transfer(apiKey, { to_user_id: bob.id, amount: 1 }), 'invalid_request');
    expectProblem(await transfer(apiKey, { from_user_id: alice.id, to_user_id: alice.id, amount: 1 }), 'invalid_request');
    for (const amount of [0, -5, '10', 2 ** 46]) expectProblem(await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount }), 'invalid_request');
    expectProblem(await api('POST', '/v1/transfers', { token: apiKey, rawBody: `{"from_user_id":"${alice.id}","to_user_id":"${bob.id}","amount":10.0}`, key: uuidv7() }), 'invalid_request');
    expectProblem(await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 1, tenant_id: otherTenantId }), 'invalid_request');
  });

  it("refuses an unknown user and another tenant's user with user_not_found", async () => {
    const [alice, foreign] = [await newUser(api, { token: apiKey }), await newUser(api, { token: otherKey })];
    await fundUser(platform, tenantId, alice.id, 100);
    expectProblem(await transfer(apiKey, { from_user_id: alice.id, to_user_id: uuidv7(), amount: 1 }), 'user_not_found');
    expectProblem(await transfer(apiKey, { from_user_id: alice.id, to_user_id: foreign.id, amount: 1 }), 'user_not_found');
    expectProblem(await transfer(apiKey, { from_user_id: foreign.id, to_user_id: alice.id, amount: 1 }), 'user_not_found');
    expectProblem(await transfer(otherKey, { from_user_id: alice.id, to_user_id: foreign.id, amount: 1 }), 'user_not_found');
  });
});

describe("a user token and another user's money", () => {
  it('cannot read or move it, whatever its scopes: every attempt is a 404', async () => {
    const [alice, bob, carol] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, bob.id, 1_000);
    const between = await transfer(apiKey, { from_user_id: bob.id, to_user_id: carol.id, amount: 100 });
    expect(between.status).toBe(201);
    const token = await userTokenFor(platform, apiKey, alice.externalId, [...TENANT_SCOPES]);

    expectProblem(await api('GET', `/v1/users/${bob.id}/balances`, { token: token }), 'user_not_found');
    expectProblem(await transfer(token, { from_user_id: bob.id, to_user_id: alice.id, amount: 1 }), 'user_not_found');
    expectProblem(await transfer(token, { from_user_id: bob.id, to_user_id: carol.id, amount: 1 }), 'user_not_found');
    expectProblem(await api('GET', `/v1/transfers/${between.body.id}`, { token: token }), 'not_found');
    expectProblem(await api('GET', `/v1/transfers?user_id=${bob.id}`, { token: token }), 'user_not_found');
    expectProblem(await api('GET', `/v1/transactions?user_id=${bob.id}`, { token: token }), 'user_not_found');
    expect(await balancesOf(api, bob.id, apiKey)).toMatchObject({ available: 1_000 - 110 });

    // Its own listings show nothing of bob's and carol's transfer.
    expect((await api('GET', '/v1/transfers', { token: token })).body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await api('GET', '/v1/transactions', { token: token })).body).toEqual({ data: [], has_more: false, next_cursor: null });
    // And another tenant's key sees none of it either.
    expectProblem(await api('GET', `/v1/users/${bob.id}/balances`, { token: otherKey }), 'user_not_found');
    expectProblem(await api('GET', `/v1/transfers/${between.body.id}`, { token: otherKey }), 'not_found');
  });
});

describe('GET /v1/transfers and GET /v1/transactions', () => {
  it("lists the tenant's transfers newest first, and a user's sent and received ones merged, page by page", async () => {
    const [alice, bob, carol] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 10_000);
    await fundUser(platform, tenantId, bob.id, 10_000);
    const ids: string[] = [];
    for (const [from, to] of [[alice, bob], [bob, alice], [alice, carol], [bob, carol], [carol, alice]] as const) {
      if (from === carol) await fundUser(platform, tenantId, carol.id, 1_000);
      const result = await transfer(apiKey, { from_user_id: from.id, to_user_id: to.id, amount: 100 });
      expect(result.status, result.text).toBe(201);
      ids.push(result.body.id);
    }
    const pages = async (path: string, token: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: CallResult<any> = await api('GET', `${path}${path.includes('?') ? '&' : '?'}limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: token });
        expect(page.status, page.text).toBe(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.data.map((t: { id: string }) => t.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      return seen;
    };
    const aliceToken = await userTokenFor(platform, apiKey, alice.externalId, ['balances:read']);
    const aliceIds = [ids[0], ids[1], ids[2], ids[4]].reverse();
    expect(await pages('/v1/transfers', aliceToken)).toEqual(aliceIds);
    expect(await pages(`/v1/transfers?user_id=${alice.id}`, apiKey)).toEqual(aliceIds);
    expect((await pages('/v1/transfers', apiKey)).slice(0, 5)).toEqual([...ids].reverse());
    expect((await api('GET', `/v1/transfers/${ids[3]}`, { token: aliceToken })).status).toBe(404);
    expect((await api('GET', `/v1/transfers/${ids[4]}`, { token: aliceToken })).body).toMatchObject({ from_user_id: carol.id, to_user_id: alice.id });
    expectProblem(await api('GET', '/v1/transfers?cursor=bm90LWEtY3Vyc29y', { token: aliceToken }), 'invalid_request');
  });

  it("shows a user token its own entries and an API key the tenant's transactions, with a type filter", async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 5_000);
    await transfer(apiKey, { from_user_id: alice.id, to_user_id: bob.id, amount: 2_000 });
    const token = await userTokenFor(platform, apiKey, alice.externalId, ['balances:read']);
    const own = await api('GET', '/v1/transactions', { token: token });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.map((t: any) => [t.type, t.direction, t.amount, t.currency])).toEqual([['transfer', 'debit', 2_025, 'USD'], ['topup', 'credit', 5_000, 'USD']]);
    expect(own.body.data[0].legs).toBeUndefined();
    const topups = await api('GET', '/v1/transactions?type=topup', { token: token });
    expect(topups.body.data.map((t: any) => t.amount)).toEqual([5_000]);

    const tenantView = await api('GET', '/v1/transactions?type=transfer&limit=1', { token: apiKey });
    expect(tenantView.status, tenantView.text).toBe(200);
    expect(tenantView.body.data[0]).toMatchObject({ type: 'transfer', direction: null, amount: 2_025 });
    expect(tenantView.body.data[0].legs.map((l: any) => [l.owner_id, l.purpose, l.direction, l.amount])).toEqual([[alice.id, 'cash', 'debit', 2_025], [bob.id, 'cash', 'credit', 2_000], [tenantId, 'revenue', 'credit', 25]]);
    expect(typeof tenantView.body.next_cursor).toBe('string');
    expectProblem(await api('GET', `/v1/transactions?cursor=${tenantView.body.next_cursor}`, { token: token }), 'invalid_request');
    const noLedgerScope = await apiKeyFor(platform, tenantId, ['balances:read']);
    expectProblem(await api('GET', '/v1/transactions', { token: noLedgerScope }), 'insufficient_scope');
    expect((await api('GET', `/v1/transactions?user_id=${alice.id}`, { token: noLedgerScope })).body.data).toHaveLength(2);
  });
});

describe('tier limits', () => {
  it('lets operators read and replace them, and refuses user tokens with forbidden whatever their scopes', async () => {
    const tenant = await createTenant(api, platformStaff, 'Limits');
    const key = await apiKeyFor(platform, tenant, [...TENANT_SCOPES]);
    const staff = await staffToken(platform, { role: 'tenant_staff', tenantId: tenant });
    expect((await api('GET', '/v1/limits', { token: key })).body).toEqual({ p2p: { daily_max: null, monthly_max: null } });
    const set = await api('PUT', '/v1/limits', { token: staff, body: { p2p: { daily_max: 1_000 } } });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ p2p: { daily_max: 1_000, monthly_max: null } });
    expect((await api('GET', '/v1/limits', { token: key })).body).toEqual(set.body);

    const user = await newUser(api, { token: key });
    const token = await userTokenFor(platform, key, user.externalId, [...TENANT_SCOPES]);
    expectProblem(await api('PUT', '/v1/limits', { token: token, body: { p2p: { daily_max: null } } }), 'forbidden');
    expectProblem(await api('GET', '/v1/limits', { token: token }), 'forbidden');
    expectProblem(await api('PUT', `/v1/users/${user.id}/limits`, { token: token, body: { p2p: null } }), 'forbidden');
    expectProblem(await api('PUT', '/v1/limits', { token: key, body: { p2p: { daily_max: -1 } } }), 'invalid_request');
    expectProblem(await api('PUT', '/v1/limits', { token: key, body: { p2p: { daily_max: 1.5 } } }), 'invalid_request');
    expectProblem(await api('PUT', '/v1/limits', { token: await apiKeyFor(platform, tenant, ['fees:manage']), body: { p2p: {} } }), 'insufficient_scope');
    const audit = (await api('GET', '/v1/audit_log', { token: key })).body.data.filter((r: any) => r.action === 'limits.set');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'limits.set', before: { p2p: { daily_max: null, monthly_max: null } }, after: set.body });
  });

  it('refuses with limit_exceeded the transfer that would pass the daily max; a user override replaces it', async () => {
    const tenant = await createTenant(api, platformStaff, 'Daily');
    const key = await apiKeyFor(platform, tenant, [...TENANT_SCOPES]);
    const [alice, bob] = [await newUser(api, { token: key }), await newUser(api, { token: key })];
    await fundUser(platform, tenant, alice.id, 5_000);
    expect((await api('PUT', '/v1/limits', { token: key, body: { p2p: { daily_max: 1_000, monthly_max: 10_000 } } })).status).toBe(200);
    expect((await transfer(key, { from_user_id: alice.id, to_user_id: bob.id, amount: 700 })).status).toBe(201);
    const passing = await transfer(key, { from_user_id: alice.id, to_user_id: bob.id, amount: 301 });
    expectProblem(passing, 'limit_exceeded');
    expect(passing.status).toBe(422);
    expect((await transfer(key, { from_user_id: alice.id, to_user_id: bob.id, amount: 300 })).status).toBe(201);
    expect(await balancesOf(api, alice.id, key)).toMatchObject({ available: 4_000 });

    const override = await api('PUT', `/v1/users/${alice.id}/limits`, { token: key, body: { p2p: { daily_max: 2_000, monthly_max: null } } });
    expect(override.body).toEqual({ user_id: alice.id, p2p: { daily_max: 2_000, monthly_max: null }, effective: { p2p: { daily_max: 2_000, monthly_max: null } } });
    expect((await api('GET', `/v1/users/${alice.id}/limits`, { token: key })).body).toEqual(override.body);
    expect((await transfer(key, { from_user_id: alice.id, to_user_id: bob.id, amount: 1_000 })).status).toBe(201);
    expectProblem(await transfer(key, { from_user_id: alice.id, to_user_id: bob.id, amount: 1 }), 'limit_exceeded');
    expectProblem(await api('GET', `/v1/users/${(await newUser(api, { token: otherKey })).id}/limits`, { token: key }), 'user_not_found');
  });
});

describe('POST /v1/users/{userId}/credit_limit', () => {
  it('refuses a consumer wallet with user_not_business', async () => {
    const consumer = await newUser(api, { token: apiKey });
    expectProblem(await api('POST', `/v1/users/${consumer.id}/credit_limit`, { token: apiKey, body: { credit_limit: 1_000 }, key: uuidv7() }), 'user_not_business');
  });

  it('refuses a line the business has already drawn past with credit_limit_below_balance', async () => {
    const [business, payee] = [await newUser(api, { token: apiKey, kind: 'business' }), await newUser(api, { token: apiKey })];
    expect((await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 1_000 }, key: uuidv7() })).status).toBe(200);
    // Draws 500 + its fee of 10 on the line.
    expect((await transfer(apiKey, { from_user_id: business.id, to_user_id: payee.id, amount: 500 })).status).toBe(201);
    expect(await balancesOf(api, business.id, apiKey)).toMatchObject({ available: -510, credit_limit: 1_000 });
    expectProblem(await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 509 }, key: uuidv7() }), 'credit_limit_below_balance');
    expect(await balancesOf(api, business.id, apiKey)).toMatchObject({ credit_limit: 1_000 });
    expect((await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 510 }, key: uuidv7() })).status).toBe(200);
    expectProblem(await transfer(apiKey, { from_user_id: business.id, to_user_id: payee.id, amount: 1 }), 'insufficient_funds');
  });

  it('sets the line, answers the previous one, and audits it with a credit_limit.changed event', async () => {
    const business = await newUser(api, { token: apiKey, kind: 'business' });
    const first = await api('POST', `/v1/users/${business.id}/credit_limit`, { token: tenantStaff, body: { credit_limit: 2_500 }, key: uuidv7() });
    expect(first.status, first.text).toBe(200);
    const cash = (await getUserRecord(walletDeps(platform, documents), tenantId, business.id)).cash_account_id;
    expect(first.body).toEqual({ user_id: business.id, account_id: cash, credit_limit: 2_500, previous: 0 });
    const second = await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 400 }, key: uuidv7() });
    expect(second.body).toEqual({ user_id: business.id, account_id: cash, credit_limit: 400, previous: 2_500 });
    expect(await balancesOf(api, business.id, apiKey)).toMatchObject({ credit_limit: 400, available: 0 });

    const audit = (await api('GET', '/v1/audit_log?limit=100', { token: apiKey })).body.data.filter((r: any) => r.action === 'credit_limit.set' && r.target.id === business.id);
    expect(audit.map((r: any) => [r.actor.type, r.before, r.after])).toEqual([
      ['api_key', { credit_limit: 2_500 }, { credit_limit: 400 }],
      ['tenant_staff', { credit_limit: 0 }, { credit_limit: 2_500 }],
    ]);
    const events = (await storedEvents(walletDeps(platform, documents), tenantId, 'credit_limit.changed')).filter((e) => e.data.credit_limit.user_id === business.id);
    // Oldest first.
    expect(events.map((e) => e.data)).toEqual([{ credit_limit: first.body }, { credit_limit: second.body }]);
  });

  it('takes an Idempotency-Key: a retry answers the first answer and audits once; without one the line is set all the same', async () => {
    const business = await newUser(api, { token: apiKey, kind: 'business' });
    const key = uuidv7();
    const first = await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 700 }, key });
    const again = await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 700 }, key });
    expect(first.status, first.text).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 800 }, key }), 'idempotency_key_reuse');
    // The spec gives a body only: a request without the header is a new change (setting a limit is idempotent by nature).
    const unkeyed = await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: 800 } });
    expect(unkeyed.status, unkeyed.text).toBe(200);
    expect(unkeyed.body).toMatchObject({ credit_limit: 800, previous: 700 });
    const audit = (await api('GET', '/v1/audit_log?limit=100', { token: apiKey })).body.data.filter((r: any) => r.action === 'credit_limit.set' && r.target.id === business.id);
    expect(audit).toHaveLength(2);
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'credit_limit.changed')).filter((e) => e.data.credit_limit.user_id === business.id)).toHaveLength(2);
  });

  it("refuses user tokens with forbidden even with credit:write, and another tenant's user with user_not_found", async () => {
    const business = await newUser(api, { token: apiKey, kind: 'business' });
    const token = await userTokenFor(platform, apiKey, business.externalId, [...TENANT_SCOPES]);
    expectProblem(await api('POST', `/v1/users/${business.id}/credit_limit`, { token: token, body: { credit_limit: 1 }, key: uuidv7() }), 'forbidden');
    expectProblem(await api('POST', `/v1/users/${business.id}/credit_limit`, { token: otherKey, body: { credit_limit: 1 }, key: uuidv7() }), 'user_not_found');
    expectProblem(await api('POST', `/v1/users/${uuidv7()}/credit_limit`, { token: apiKey, body: { credit_limit: 1 }, key: uuidv7() }), 'user_not_found');
    expectProblem(await api('POST', `/v1/users/${business.id}/credit_limit`, { token: apiKey, body: { credit_limit: -1 }, key: uuidv7() }), 'invalid_request');
    expectProblem(await api('POST', `/v1/users/${business.id}/credit_limit`, { token: await apiKeyFor(platform, tenantId, ['balances:read']), body: { credit_limit: 1 } }), 'insufficient_scope');
  });
});

describe('the sweeper worker', () => {
  it('finishes on its schedule a transfer that a crash left between the ledger posting and the wallet', async () => {
    const [alice, bob] = [await newUser(api, { token: apiKey }), await newUser(api, { token: apiKey })];
    await fundUser(platform, tenantId, alice.id, 1_000);
    // The crashed request started long enough ago for the sweeper to take it over.
    const runtime: WalletDeps = {
      client: documents,
      table: platform.tables.wallet.name,
      clock: new ManualClock(new Date(Date.now() - SWEEP_AFTER_MS - 5_000)),
      ids: uuidv7,
      signer: () => Promise.reject(new Error('no signer here')),
      ledger: () => ledger,
    };
    const principal: Principal = { kind: 'api_key', id: `key-${uuidv7()}`, scopes: new Set(['transfers:write']), tenantId };
    const key = uuidv7();
    const body = { from_user_id: alice.id, to_user_id: bob.id, amount: 100 };
    const crash = { afterLedger: () => { throw new Error('crashed after the ledger posting'); } };
    await expect(createTransfer(runtime, principal, tenantId, body, { idempotencyKey: key, requestId: uuidv7() }, crash)).rejects.toThrow('crashed');
    expect(await balancesOf(api, alice.id, apiKey)).toMatchObject({ available: 890 });
    expect((await api('GET', `/v1/transfers?user_id=${alice.id}`, { token: apiKey })).body.data).toEqual([]);

    const swept = (await platform.scheduler.run('walletSweepOperations')) as { finished: number };
    expect(swept.finished).toBeGreaterThanOrEqual(1);
    const listed = (await api('GET', `/v1/transfers?user_id=${alice.id}`, { token: apiKey })).body.data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ ...body, fee: 10, status: 'completed' });
    expect((await storedEvents(walletDeps(platform, documents), tenantId, 'transfer.completed')).filter((e) => e.data.transfer.id === listed[0].id)).toHaveLength(1);

    // The client's late retry over HTTP answers what the sweeper committed; nothing moves again.
    const retry = await transfer(apiKey, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(listed[0]);
    expect(await balancesOf(api, alice.id, apiKey)).toMatchObject({ available: 890 });
  });
});
