import { apiClient, expectProblem } from '../support/http';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { signPayload } from '../../shared/events/signature';
import { uuidv7 } from '../../shared/kernel/ids';
import type { LedgerClient } from '../../shared/ledger-client/client';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { getUserRecord } from '../../shared/wallet/tenancy/users';
import { sandboxWebhookRequest } from '../../shared/wallet/topups/sandbox';
import { topupRoutes } from '../../shared/wallet/topups/routes';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { manifestWith, startTestPlatform, type CallResult } from '../support/platform';
import { eventsOfTopup } from '../support/events';
import { nowSeconds, postSigned, sandboxSecret } from '../support/sandbox';
import { createTenant } from '../support/tenants';
import { walletDeps, walletLedgerClient } from '../support/wallet';
import type { TenantRecord } from '../../shared/wallet/tenancy/records';

/**
 * Top-ups end to end over HTTP on the embedded platform: the client starts a top-up, the sandbox
 * processor's queue worker POSTs its signed confirmation to the public webhook, the wallet credits
 * the ledger and commits the status with its outbox event. Balances are read through the ledger
 * API with the wallet's own credentials.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let documents: DocumentClient;
let ledger: LedgerClient;
let tenant: TenantRecord;
let otherKey: string;
let apiKey: string;
let liveKey: string;
let tenantStaff: string;
let aliceToken: string;
let readOnlyToken: string;
let aliceId: string;
let bobId: string;
let revenueBefore: number;
/** Top-ups started together in beforeAll (one user each), so their confirmations arrive together. */
const early: Record<'succeed' | 'decline' | 'mismatchCredit' | 'mismatchRefund', { userId: string; started: CallResult<any> }> = {} as never;

async function startTopup(token: string, body: Record<string, unknown>, key = uuidv7()) {
  const result = await api('POST', '/v1/topups', { token: token, body: { currency: 'USD', ...body }, key });
  expect(result.status, result.text).toBe(201);
  return result;
}

/** Delivers the sandbox's queued confirmations (they wait one second) until the top-up leaves pending. */
async function topupSettled(topupId: string): Promise<any> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await platform.queues.drain();
    const read = await api('GET', `/v1/topups/${topupId}`, { token: apiKey });
    expect(read.status, read.text).toBe(200);
    if (read.body.status !== 'pending') return read.body;
    if (Date.now() > deadline) throw new Error(`top-up ${topupId} is still pending`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const postedOf = async (accountId: string) => (await ledger.getAccount(tenant.ledger_id, accountId)).balance.posted;
const cashOf = async (userId: string) => postedOf((await getUserRecord(walletDeps(platform, documents), tenant.id, userId)).cash_account_id);

/** A confirmation as the sandbox sends it, for replays and forgeries. */
function confirmation(topup: any, overrides: { id?: string; outcome?: 'succeeded' | 'failed'; amount?: number } = {}) {
  return { id: overrides.id ?? `sbx_evt_${topup.id.replace(/-/g, '')}`, topup_id: topup.id, processor_ref: topup.processor_ref, outcome: overrides.outcome ?? 'succeeded', amount: overrides.amount ?? topup.amount, currency: topup.currency };
}

const processorWebhook = (request: { body: string; headers: Record<string, string> }) => postSigned(base, '/v1/processor_webhooks/sandbox', request);

beforeAll(async () => {
  platform = await startTestPlatform({ routes: manifestWith(topupRoutes) });
  base = platform.urls.public;
  documents = localDocumentClient(platform.dynamodbEndpoint);
  ledger = walletLedgerClient(platform);
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const [tenantId, otherTenantId] = [await createTenant(api, platformStaff, 'Top-up A'), await createTenant(api, platformStaff, 'Top-up B')];
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  liveKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES], { env: 'live' });
  otherKey = await apiKeyFor(platform, otherTenantId, [...TENANT_SCOPES]);
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId });
  aliceId = (await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'alice' } })).body.id;
  bobId = (await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'bob' } })).body.id;
  aliceToken = await userTokenFor(platform, apiKey, 'alice', ['topups:read', 'topups:write']);
  readOnlyToken = await userTokenFor(platform, apiKey, 'alice', ['topups:read']);
  // 1 % + 5: the user pays it out of the amount, the tenant's revenue account receives it.
  const fees = await api('PUT', '/v1/fee_plan', { token: apiKey, body: { topup: { bps: 100, flat: 5, min_fee: 0 } } });
  expect(fees.status, fees.text).toBe(200);
  tenant = await getTenantRecord(walletDeps(platform, documents), tenantId);
  revenueBefore = await postedOf(tenant.accounts.revenue);
  const scenarios = [
    ['succeed', 1_000, 'succeed'],
    ['decline', 700, 'decline'],
    ['mismatchCredit', 2_000, 'mismatch'],
    ['mismatchRefund', 50, 'mismatch'],
  ] as const;
  for (const [name, amount, outcome] of scenarios) {
    const userId = (await api('POST', '/v1/users', { token: apiKey, body: { external_id: `early-${name}` } })).body.id as string;
    early[name] = { userId, started: await startTopup(apiKey, { user_id: userId, amount, sandbox_outcome: outcome }) };
  }
});

afterAll(async () => {
  await platform?.stop();
});

describe('a top-up the sandbox confirms', () => {
  it('credits the user once the signed webhook arrives, with the fee to revenue and a topup.succeeded event', async () => {
    const { userId, started } = early.succeed;
    expect(started.body).toMatchObject({ user_id: userId, amount: 1_000, currency: 'USD', fee: 15, net_amount: 985, gateway: 'sandbox', status: 'pending', ledger_transaction_id: null, redirect_url: null });
    expect(started.body.client_secret).toMatch(/^sbx_pi_[0-9a-f]{32}_secret_[0-9a-f]{24}$/);

    const done = await topupSettled(started.body.id);
    expect(done).toMatchObject({ status: 'succeeded', confirmed_amount: 1_000, confirmed_currency: 'USD', net_amount: 985 });
    expect(done.ledger_transaction_id).toEqual(expect.any(String));
    expect(await cashOf(userId)).toBe(985);
    expect(await postedOf(tenant.accounts.revenue)).toBe(revenueBefore + 15);
    const transaction = await ledger.getTransaction(tenant.ledger_id, done.ledger_transaction_id);
    expect(transaction).toMatchObject({ type: 'topup', reference_id: started.body.id });

    const events = await eventsOfTopup(walletDeps(platform, documents), tenant.id, started.body.id);
    expect(events.map((e) => e.type)).toEqual(['topup.succeeded']);
    expect(events[0]!.data.topup).toMatchObject({ id: started.body.id, user_id: userId, amount: 1_000, status: 'succeeded' });
  });

  it('replays the same Idempotency-Key byte for byte and refuses it with another body', async () => {
    const key = uuidv7();
    const first = await startTopup(apiKey, { user_id: aliceId, amount: 300 }, key);
    const again = await api('POST', '/v1/topups', { token: apiKey, body: { currency: 'USD', user_id: aliceId, amount: 300 }, key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { currency: 'USD', user_id: aliceId, amount: 301 }, key }), 'idempotency_key_reuse');
    // One intent, one confirmation: the replay queued nothing more.
    expect((await topupSettled(first.body.id)).status).toBe('succeeded');
    const after = await api('POST', '/v1/topups', { token: apiKey, body: { currency: 'USD', user_id: aliceId, amount: 300 }, key });
    expect(after.text).toBe(first.text);
  });

  it('does not credit twice for a duplicate delivery or a second event of the same top-up', async () => {
    const started = await startTopup(aliceToken, { amount: 500 });
    expect(started.body.user_id).toBe(aliceId);
    await topupSettled(started.body.id);
    const credited = await cashOf(aliceId);

    const duplicate = await processorWebhook(sandboxWebhookRequest(confirmation(started.body), sandboxSecret(), nowSeconds()));
    expect(duplicate.status, duplicate.text).toBe(200);
    expect(duplicate.body).toEqual({ received: true, event_id: `sbx_evt_${started.body.id.replace(/-/g, '')}`, topup_id: started.body.id, status: 'succeeded', ignored: false });
    expect(duplicate.headers.get('idempotent-replayed')).toBe('true');

    const second = await processorWebhook(sandboxWebhookRequest(confirmation(started.body, { id: `evt_${uuidv7()}` }), sandboxSecret(), nowSeconds()));
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ status: 'succeeded', ignored: true });
    const late = await processorWebhook(sandboxWebhookRequest(confirmation(started.body, { id: `evt_${uuidv7()}`, outcome: 'failed' }), sandboxSecret(), nowSeconds()));
    expect(late.body).toMatchObject({ status: 'succeeded', ignored: true });

    expect(await cashOf(aliceId)).toBe(credited);
    expect((await eventsOfTopup(walletDeps(platform, documents), tenant.id, started.body.id)).length).toBe(1);
  });
});

describe('a top-up the sandbox declines', () => {
  it('fails with topup.failed and credits nothing', async () => {
    const { userId, started } = early.decline;
    const done = await topupSettled(started.body.id);
    expect(done).toMatchObject({ status: 'failed', failure_reason: 'declined', ledger_transaction_id: null });
    expect(await cashOf(userId)).toBe(0);
    const events = await eventsOfTopup(walletDeps(platform, documents), tenant.id, started.body.id);
    expect(events.map((e) => e.type)).toEqual(['topup.failed']);
    expect(events[0]!.data.topup).toMatchObject({ id: started.body.id, status: 'failed' });
  });
});

describe('an amount mismatch', () => {
  it('credits nothing, and an operator credits the confirmed amount (audited, once per key)', async () => {
    const { userId, started } = early.mismatchCredit;
    const mismatched = await topupSettled(started.body.id);
    expect(mismatched).toMatchObject({ status: 'amount_mismatch', amount: 2_000, confirmed_amount: 1_999, confirmed_currency: 'USD', ledger_transaction_id: null });
    expect(await cashOf(userId)).toBe(0);
    expect((await eventsOfTopup(walletDeps(platform, documents), tenant.id, started.body.id)).map((e) => e.type)).toEqual(['topup.amount_mismatch']);

    const path = `/v1/topups/${started.body.id}/resolve`;
    expectProblem(await api('POST', path, { token: aliceToken, body: { action: 'credit_confirmed' }, key: uuidv7() }), 'forbidden');
    expectProblem(await api('POST', path, { token: apiKey, body: { action: 'credit_confirmed' } }), 'invalid_request');
    const key = uuidv7();
    const resolved = await api('POST', path, { token: tenantStaff, body: { action: 'credit_confirmed' }, key });
    expect(resolved.status, resolved.text).toBe(200);
    // Fee on the confirmed amount: 5 + round(19.99) = 25.
    expect(resolved.body).toMatchObject({ status: 'succeeded', resolution: 'credit_confirmed', confirmed_amount: 1_999, fee: 25, net_amount: 1_974 });
    expect(await cashOf(userId)).toBe(1_974);
    expect((await eventsOfTopup(walletDeps(platform, documents), tenant.id, started.body.id)).map((e) => e.type).sort()).toEqual(['topup.amount_mismatch', 'topup.succeeded']);

    const replay = await api('POST', path, { token: tenantStaff, body: { action: 'credit_confirmed' }, key });
    expect(replay.text).toBe(resolved.text);
    expectProblem(await api('POST', path, { token: apiKey, body: { action: 'refund' }, key: uuidv7() }), 'invalid_transition');
    expect(await cashOf(userId)).toBe(1_974);

    const audit = await api('GET', '/v1/audit_log', { token: apiKey });
    const entry = audit.body.data.find((record: any) => record.action === 'topup.resolve' && record.target.id === started.body.id);
    expect(entry).toMatchObject({ actor: { type: 'tenant_staff' }, before: { status: 'amount_mismatch' }, after: { status: 'succeeded' } });
  });

  it('is refunded on an operator\'s refund through the processor\'s refund, with topup.failed naming the reason and nothing credited', async () => {
    const { userId, started } = early.mismatchRefund;
    expect((await topupSettled(started.body.id)).status).toBe('amount_mismatch');
    const refunded = await api('POST', `/v1/topups/${started.body.id}/resolve`, { token: apiKey, body: { action: 'refund' }, key: uuidv7() });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'refunded', resolution: 'refund', failure_reason: 'refunded_after_mismatch' });
    // The processor's adapter was asked to give the payer back: its refund id is on the top-up.
    expect(refunded.body.processor_refund_ref).toBe(`sbx_re_${started.body.id.replace(/-/g, '')}`);
    expect((await api('GET', `/v1/topups/${started.body.id}`, { token: apiKey })).body.processor_refund_ref).toBe(refunded.body.processor_refund_ref);
    expect(await cashOf(userId)).toBe(0);
    const failed = (await eventsOfTopup(walletDeps(platform, documents), tenant.id, started.body.id)).find((e) => e.type === 'topup.failed');
    expect(failed!.data).toMatchObject({ reason: 'refunded_after_mismatch', topup: { status: 'refunded' } });
    expectProblem(await api('POST', `/v1/topups/${started.body.id}/resolve`, { token: apiKey, body: { action: 'credit_confirmed' }, key: uuidv7() }), 'invalid_transition');
  });

  it('refuses to resolve a top-up that is not in amount_mismatch with invalid_transition', async () => {
    const started = await startTopup(apiKey, { user_id: bobId, amount: 100 });
    expectProblem(await api('POST', `/v1/topups/${started.body.id}/resolve`, { token: apiKey, body: { action: 'credit_confirmed' }, key: uuidv7() }), 'invalid_transition');
  });
});

describe('the inbound webhook', () => {
  it('refuses a forged, stale, missing or mangled signature with 401 and changes nothing', async () => {
    const started = await startTopup(apiKey, { user_id: bobId, amount: 400 });
    const event = confirmation(started.body);
    const genuine = sandboxWebhookRequest(event, sandboxSecret(), nowSeconds());
    const forged = sandboxWebhookRequest(event, 'not-the-secret-'.repeat(4), nowSeconds());
    const stale = sandboxWebhookRequest(event, sandboxSecret(), nowSeconds() - 600);
    const future = sandboxWebhookRequest(event, sandboxSecret(), nowSeconds() + 600);
    const tampered = { body: genuine.body.replace('"amount":400', '"amount":40000'), headers: genuine.headers };
    const { 'x-sandbox-signature': _dropped, ...unsigned } = genuine.headers;
    for (const request of [forged, stale, future, tampered, { body: genuine.body, headers: unsigned }, { body: genuine.body, headers: { ...unsigned, 'x-sandbox-signature': 'garbage' } }]) {
      expectProblem(await processorWebhook(request), 'unauthenticated');
    }
    expect((await api('GET', `/v1/topups/${started.body.id}`, { token: apiKey })).body.status).toBe('pending');
    expect((await topupSettled(started.body.id)).status).toBe('succeeded');
  });

  it('answers an unknown gateway or top-up with 404 and a signed non-event with 400', async () => {
    const unknownTopup = sandboxWebhookRequest({ id: 'evt_x', topup_id: uuidv7(), processor_ref: 'sbx_pi_x', outcome: 'succeeded', amount: 1, currency: 'USD' }, sandboxSecret(), nowSeconds());
    expectProblem(await processorWebhook(unknownTopup), 'not_found');
    expectProblem(await api('POST', '/v1/processor_webhooks/stripe', { rawBody: unknownTopup.body, headers: unknownTopup.headers }), 'not_found');
    const body = JSON.stringify({ hello: 'world' });
    expectProblem(await processorWebhook({ body, headers: { 'content-type': 'application/json', 'x-sandbox-signature': signPayload(sandboxSecret(), body, nowSeconds()) } }), 'invalid_request');
  });
});

describe('starting a top-up', () => {
  it('refuses a currency other than the tenant\'s, an unknown gateway, a missing key, and a live key on the sandbox gateway', async () => {
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: aliceId, amount: 100, currency: 'EUR' }, key: uuidv7() }), 'invalid_request');
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: aliceId, amount: 100, currency: 'USD', gateway: 'stripe' }, key: uuidv7() }), 'invalid_request');
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: aliceId, amount: 100, currency: 'USD' } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: aliceId, amount: 0, currency: 'USD' }, key: uuidv7() }), 'invalid_request');
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: aliceId, amount: 10.5, currency: 'USD' }, key: uuidv7() }), 'invalid_request');
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { amount: 100, currency: 'USD' }, key: uuidv7() }), 'invalid_request');
    // 1 % + 5 on 5 is 5: nothing would be left to credit.
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: aliceId, amount: 5, currency: 'USD' }, key: uuidv7() }), 'invalid_request');
    expectProblem(await api('POST', '/v1/topups', { token: liveKey, body: { user_id: aliceId, amount: 100, currency: 'USD', sandbox_outcome: 'decline' }, key: uuidv7() }), 'invalid_request');
    // The sandbox credits money no one paid: a live key is refused there outright, and does not see it offered.
    const live = await api('POST', '/v1/topups', { token: liveKey, body: { user_id: aliceId, amount: 100, currency: 'USD' }, key: uuidv7() });
    expectProblem(live, 'invalid_request');
    expect(live.body.errors).toEqual([expect.objectContaining({ field: 'gateway' })]);
    expect((await api('GET', '/v1/topup_gateways', { token: liveKey })).body.data.map((g: { name: string }) => g.name)).not.toContain('sandbox');
    expect((await api('GET', '/v1/topup_gateways', { token: apiKey })).body.data.map((g: { name: string }) => g.name)).toContain('sandbox');
  });

  it("confines a user token to its own user and answers another tenant's user with user_not_found", async () => {
    expectProblem(await api('POST', '/v1/topups', { token: aliceToken, body: { user_id: bobId, amount: 100, currency: 'USD' }, key: uuidv7() }), 'user_not_found');
    expectProblem(await api('POST', '/v1/topups', { token: readOnlyToken, body: { amount: 100, currency: 'USD' }, key: uuidv7() }), 'insufficient_scope');
    const otherUser = (await api('POST', '/v1/users', { token: otherKey, body: { external_id: 'carol' } })).body.id;
    expectProblem(await api('POST', '/v1/topups', { token: apiKey, body: { user_id: otherUser, amount: 100, currency: 'USD' }, key: uuidv7() }), 'user_not_found');
  });
});

describe('reading top-ups', () => {
  it("answers another tenant's or another user's top-up with 404", async () => {
    const bobs = await startTopup(apiKey, { user_id: bobId, amount: 100, sandbox_outcome: 'decline' });
    expect((await api('GET', `/v1/topups/${bobs.body.id}`, { token: tenantStaff })).status).toBe(200);
    expectProblem(await api('GET', `/v1/topups/${bobs.body.id}`, { token: otherKey }), 'not_found');
    expectProblem(await api('GET', `/v1/topups/${bobs.body.id}`, { token: readOnlyToken }), 'not_found');
    expectProblem(await api('POST', `/v1/topups/${bobs.body.id}/resolve`, { token: otherKey, body: { action: 'refund' }, key: uuidv7() }), 'not_found');
  });

  it('lists newest first with a cursor; a user token sees only its own', async () => {
    const first = await api('GET', '/v1/topups?limit=2', { token: apiKey });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(2);
    const second = await api('GET', `/v1/topups?limit=2&cursor=${first.body.next_cursor}`, { token: apiKey });
    const ids = [...first.body.data, ...second.body.data].map((t: any) => t.id);
    expect(ids).toEqual([...ids].sort().reverse());

    const own = await api('GET', '/v1/topups?limit=100', { token: readOnlyToken });
    expect(own.body.data.length).toBeGreaterThan(0);
    expect(own.body.data.every((t: any) => t.user_id === aliceId)).toBe(true);
    expectProblem(await api('GET', `/v1/topups?user_id=${bobId}`, { token: readOnlyToken }), 'user_not_found');
    const bobs = await api('GET', `/v1/topups?user_id=${bobId}&limit=100`, { token: apiKey });
    expect(bobs.body.data.length).toBeGreaterThan(0);
    expect(bobs.body.data.every((t: any) => t.user_id === bobId)).toBe(true);
    expect((await api('GET', '/v1/topups', { token: otherKey })).body.data).toEqual([]);
    expectProblem(await api('GET', '/v1/topups?cursor=bogus', { token: apiKey }), 'invalid_request');
  });
});

describe('gateways and devices', () => {
  it('lists the sandbox gateway for the tenant currency to any tenant principal with a top-up scope', async () => {
    const listed = await api('GET', '/v1/topup_gateways', { token: readOnlyToken });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toEqual({ data: [{ name: 'sandbox', flow: 'client_secret', currencies: ['USD'] }] });
    expect((await api('GET', '/v1/topup_gateways', { token: tenantStaff })).status).toBe(200);
    const noScope = await userTokenFor(platform, apiKey, 'alice', ['users:read']);
    expectProblem(await api('GET', '/v1/topup_gateways', { token: noScope }), 'insufficient_scope');
  });

  it("registers a user's own device, refreshes a known token, and moves a token to its new user", async () => {
    const created = await api('POST', '/v1/devices', { token: aliceToken, body: { platform: 'ios', push_token: 'a'.repeat(64) } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ user_id: aliceId, platform: 'ios' });
    const again = await api('POST', '/v1/devices', { token: aliceToken, body: { platform: 'ios', push_token: 'a'.repeat(64) } });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    const moved = await api('POST', '/v1/devices', { token: apiKey, body: { user_id: bobId, platform: 'ios', push_token: 'a'.repeat(64) } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: created.body.id, user_id: bobId });

    expectProblem(await api('POST', '/v1/devices', { token: apiKey, body: { platform: 'android', push_token: 'fcm-token' } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/devices', { token: aliceToken, body: { user_id: bobId, platform: 'web', push_token: 'x' } }), 'user_not_found');
    expectProblem(await api('POST', '/v1/devices', { token: aliceToken, body: { platform: 'blackberry', push_token: 'x' } }), 'invalid_request');
    expectProblem(await api('POST', '/v1/devices', { token: tenantStaff, body: { user_id: bobId, platform: 'web', push_token: 'x' } }), 'forbidden');
    expectProblem(await api('POST', '/v1/devices', { token: readOnlyToken, body: { platform: 'web', push_token: 'x' } }), 'insufficient_scope');
  });
});
