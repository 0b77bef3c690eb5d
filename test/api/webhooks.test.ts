import { apiClient, expectProblem } from '../support/http';
import { QueryCommand, type DocumentClient } from '../../shared/aws/dynamodb';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { type EventEnvelope } from '../../shared/events/outbox';
import { uuidv7 } from '../../shared/kernel/ids';
import { webhookRoutes } from '../../shared/wallet/webhooks/routes';
import { verifyWebhook } from '../../shared/wallet/webhooks/verify';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { clientOf } from '../support/catalog';
import { call, manifestWith, startTestPlatform } from '../support/platform';
import { startReceiver, type ReceivedRequest, type Receiver } from '../integration/webhooks-receiver';
import { until } from '../support/time';
import { fundUser } from '../support/money';
import { createTenant, newUser } from '../support/tenants';
import { commitEvent } from '../support/events';
import { walletDeps } from '../support/wallet';
import { endpointRegistrar, feePlanChanger, requestsReceived } from '../support/webhooks';

/**
 * Webhooks over HTTP, like an integrator: endpoints registered with real credentials, events
 * caused through the API (PUT /v1/fee_plan emits fee_plan.set) or committed as the catalog will
 * (merchant events), carried by the real stream relay and queue worker to a receiver on
 * 127.0.0.1, and verified with the stripe package.
 */

const stripe = new Stripe('sk_test_unused');

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let receiver: Receiver;
let documents: DocumentClient;
let tenantId: string;
let otherTenantId: string;
let apiKey: string;
let liveKey: string;
let readKey: string;
let otherKey: string;
let userToken: string;
let tenantStaff: string;
let clientA: string;
let clientB: string;
let merchantA: string;
let merchantB: string;
let merchantWithoutWebhookScope: string;

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startTestPlatform({ routes: manifestWith(webhookRoutes) });
  base = platform.urls.public;
  documents = localDocumentClient(platform.dynamodbEndpoint);
  const platformStaff = await staffToken(platform, { role: 'platform' });
  [tenantId, otherTenantId] = [await createTenant(api, platformStaff, 'Tenant A'), await createTenant(api, platformStaff, 'Tenant B')];
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  liveKey = await apiKeyFor(platform, tenantId, ['webhooks:manage'], { env: 'live' });
  readKey = await apiKeyFor(platform, tenantId, ['webhooks:read']);
  otherKey = await apiKeyFor(platform, otherTenantId, [...TENANT_SCOPES]);
  clientA = (await clientOf(base, apiKey)).id;
  clientB = (await clientOf(base, apiKey)).id;
  merchantA = await apiKeyFor(platform, tenantId, ['webhooks:manage'], { clientId: clientA });
  merchantB = await apiKeyFor(platform, tenantId, ['webhooks:manage'], { clientId: clientB });
  merchantWithoutWebhookScope = await apiKeyFor(platform, tenantId, ['catalog:read'], { clientId: clientA });
  tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId, scopes: ['clients:manage'] });
  expect((await api('POST', '/v1/users', { token: apiKey, body: { external_id: 'alice' } })).status).toBe(201);
  userToken = await userTokenFor(platform, apiKey, 'alice', [...TENANT_SCOPES]);
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

/** A merchant's order event committed as a domain service does (merchant events: the catalog is not built yet). */
const merchantEvent = (type: string, clientId?: string): Promise<EventEnvelope> =>
  commitEvent(walletDeps(platform, documents), tenantId, type, { order: { id: uuidv7(), status: 'open' } }, clientId);

const register = endpointRegistrar(api, () => receiver, () => apiKey);
const changeFeePlan = feePlanChanger(api, () => apiKey);
const received = requestsReceived(() => receiver, 'x-wallet-event-id');

/** Waits for the event at the path, then for the relay and queue to go quiet (so absences are real). */
async function deliveredTo(path: string, eventId: string, count = 1): Promise<ReceivedRequest[]> {
  await until(() => received(path, eventId).length >= count, 15_000, `${eventId} at ${path}`);
  await platform.streams!.settle();
  await platform.queues.drain();
  return received(path, eventId);
}

describe('endpoints', () => {
  it('registers an endpoint whose secret is shown once and never listed', async () => {
    const created = await register('/listed', { event_filters: ['topup.*', 'transfer.completed', 'topup.*'], description: 'ops' });
    expect(created).toMatchObject({ url: receiver.route('/listed'), event_filters: ['topup.*', 'transfer.completed'], description: 'ops', status: 'active', livemode: false });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.client_id).toBeUndefined();
    // An endpoint without filters receives everything: event_filters is absent, never null.
    const everything = await register('/everything');
    expect(everything).not.toHaveProperty('event_filters');

    const listed = await api('GET', '/v1/webhook_endpoints', { token: readKey });
    expect(listed.status, listed.text).toBe(200);
    // A JSON array of every live endpoint (spec part 4 item 22), newest first.
    expect(Array.isArray(listed.body)).toBe(true);
    expect(listed.body.map((e: { id: string }) => e.id)).toContain(created.id);
    expect(listed.body.map((e: { id: string }) => e.id)).toEqual([...listed.body.map((e: { id: string }) => e.id)].sort().reverse());
    expect(listed.text).not.toContain(created.secret);
    expect(listed.text).not.toContain('whsec_');
    for (const endpoint of listed.body) expect(endpoint).not.toHaveProperty('secret');
  });

  it('refuses unknown event types and empty filters', async () => {
    for (const event_filters of [['topup.exploded'], ['nothing.*'], [], ['*']]) {
      const result = await api('POST', '/v1/webhook_endpoints', { token: apiKey, body: { url: receiver.route('/bad'), event_filters } });
      expectProblem(result, 'invalid_request');
    }
  });

  it('refuses loopback, private, link-local and ULA literals and http for a live endpoint', async () => {
    for (const url of ['https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/', 'https://[::1]/hook', 'https://[fd00::1]/hook', 'http://hooks.example.com/hook']) {
      const result = await api('POST', '/v1/webhook_endpoints', { token: liveKey, body: { url } });
      expectProblem(result, 'invalid_request');
      expect(result.body.errors, url).toEqual([expect.objectContaining({ field: 'body.url' })]);
    }
    // A name under the reserved .invalid TLD (never resolved at creation), and a filter no event here
    // matches: the test registers no deliverable address and nothing is ever sent to it.
    const live = await api('POST', '/v1/webhook_endpoints', { token: liveKey, body: { url: 'https://hooks.example.invalid/wallet', event_filters: ['credit_limit.changed'] } });
    expect(live.status, live.text).toBe(201);
    expect(live.body.livemode).toBe(true);
    expect((await api('DELETE', `/v1/webhook_endpoints/${live.body.id}`, { token: liveKey })).status).toBe(200);
  });

  it('deletes an endpoint: gone from the listing, its secret erased, a second delete and another tenant answer 404', async () => {
    const created = await register('/to-delete');
    expectProblem(await api('DELETE', `/v1/webhook_endpoints/${created.id}`, { token: otherKey }), 'not_found');
    const deleted = await api('DELETE', `/v1/webhook_endpoints/${created.id}`, { token: apiKey });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({ id: created.id, status: 'deleted' });
    expect(deleted.body).not.toHaveProperty('secret');
    const listed = await api('GET', '/v1/webhook_endpoints', { token: apiKey });
    expect(listed.body.map((e: { id: string }) => e.id)).not.toContain(created.id);
    expectProblem(await api('DELETE', `/v1/webhook_endpoints/${created.id}`, { token: apiKey }), 'not_found');
  });

  it('reads and updates an endpoint (url, filters, description): deliveries follow the new url; another tenant answers 404', async () => {
    const created = await register('/before-move', { event_filters: ['transfer.completed'], description: 'first' });
    const got = await api('GET', `/v1/webhook_endpoints/${created.id}`, { token: readKey });
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ id: created.id, url: receiver.route('/before-move'), event_filters: ['transfer.completed'], description: 'first', status: 'active' });
    expect(got.body).not.toHaveProperty('secret');
    expectProblem(await api('GET', `/v1/webhook_endpoints/${created.id}`, { token: otherKey }), 'not_found');
    expectProblem(await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { token: otherKey, body: { description: 'theirs' } }), 'not_found');
    expectProblem(await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { token: readKey, body: { description: 'read only' } }), 'insufficient_scope');
    expectProblem(await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { token: apiKey, body: {} }), 'invalid_request');

    const moved = await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { token: apiKey, body: { url: receiver.route('/after-move'), event_filters: null, description: null } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ id: created.id, url: receiver.route('/after-move'), description: null });
    expect(moved.body).not.toHaveProperty('event_filters');
    expect((await api('GET', `/v1/webhook_endpoints/${created.id}`, { token: apiKey })).body).toEqual(moved.body);
    // No filters now: a fee plan change reaches it, at its new url, signed with the secret it had.
    const event = await changeFeePlan();
    const [delivery] = await deliveredTo('/after-move', event);
    expect(() => stripe.webhooks.signature!.verifyHeader(delivery!.body, delivery!.headers['x-wallet-signature'] as string, created.secret, 300)).not.toThrow();
    expect(received('/before-move')).toEqual([]);

    await api('DELETE', `/v1/webhook_endpoints/${created.id}`, { token: apiKey });
    expectProblem(await api('GET', `/v1/webhook_endpoints/${created.id}`, { token: apiKey }), 'not_found');
    expectProblem(await api('PATCH', `/v1/webhook_endpoints/${created.id}`, { token: apiKey, body: { description: 'gone' } }), 'not_found');
  });

  it('checks a new url as creation does: a live endpoint refuses loopback, private and http urls, and keeps its url', async () => {
    const live = await api('POST', '/v1/webhook_endpoints', { token: liveKey, body: { url: 'https://hooks.example.invalid/wallet', event_filters: ['credit_limit.changed'] } });
    expect(live.status, live.text).toBe(201);
    for (const url of ['https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest/meta-data/', 'https://[::1]/hook', 'http://hooks.example.com/hook', 'not a url']) {
      const result = await api('PATCH', `/v1/webhook_endpoints/${live.body.id}`, { token: liveKey, body: { url } });
      expectProblem(result, 'invalid_request', url);
      expect(result.body.errors, url).toEqual([expect.objectContaining({ field: 'body.url' })]);
    }
    expect((await api('GET', `/v1/webhook_endpoints/${live.body.id}`, { token: liveKey })).body.url).toBe('https://hooks.example.invalid/wallet');
    expectProblem(await api('PATCH', `/v1/webhook_endpoints/${live.body.id}`, { token: liveKey, body: { event_filters: ['no.such_event'] } }), 'invalid_request');
    expect((await api('DELETE', `/v1/webhook_endpoints/${live.body.id}`, { token: liveKey })).status).toBe(200);
  });

  it('refuses a user token with forbidden and a read-only key with insufficient_scope', async () => {
    expectProblem(await api('GET', '/v1/webhook_endpoints', { token: userToken }), 'forbidden');
    expectProblem(await api('POST', '/v1/webhook_endpoints', { token: readKey, body: { url: receiver.route('/nope') } }), 'insufficient_scope');
    expect((await api('GET', '/v1/webhook_deliveries', { token: readKey })).status).toBe(200);
    expect((await api('GET', '/v1/webhook_events', { token: readKey })).status).toBe(200);
  });
});

describe('deliveries end to end', () => {
  it('delivers a signed fee_plan.set after PUT /v1/fee_plan that the stripe package verifies, and lists it', async () => {
    const endpoint = await register('/e2e', { event_filters: ['fee_plan.set'] });
    const eventId = await changeFeePlan();
    const [request] = await deliveredTo('/e2e', eventId);
    const header = request!.headers['x-wallet-signature'] as string;
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => stripe.webhooks.signature!.verifyHeader(request!.body, header, endpoint.secret, 300)).not.toThrow();
    expect(verifyWebhook(request!.body, header, endpoint.secret)).toMatchObject({ ok: true });
    expect(verifyWebhook(request!.body, header, 'whsec_wrong')).toEqual({ ok: false, reason: 'mismatch' });
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ id: eventId, type: 'fee_plan.set', tenant_id: tenantId, data: { fee_plan: { commission_mode: 'deduct' } } });
    expect(Object.keys(body)).toEqual(['id', 'type', 'tenant_id', 'created_at', 'data']);
    expect(body.created_at).toMatch(/\.\d{3}Z$/);

    const attempts = await api('GET', '/v1/webhook_deliveries?limit=100', { token: apiKey });
    expect(attempts.status, attempts.text).toBe(200);
    expect(attempts.body.data.filter((a: { endpoint_id: string }) => a.endpoint_id === endpoint.id)).toEqual([
      expect.objectContaining({ event_id: eventId, event_type: 'fee_plan.set', attempt: 1, status: 'succeeded', response_code: 200, error: null, manual: false, next_attempt_at: null }),
    ]);
    const published = platform.events.published().filter((e) => JSON.parse(e.detail).id === eventId);
    expect(published).toEqual([expect.objectContaining({ source: 'wallet', detailType: 'fee_plan.set' })]);
  });

  it('delivers transfer.completed after POST /v1/transfers, signed and verifiable', async () => {
    const endpoint = await register('/transfers', { event_filters: ['transfer.*'] });
    const [alice, bob] = [(await newUser(api, { token: apiKey })).id, (await newUser(api, { token: apiKey })).id];
    await fundUser(platform, tenantId, alice, 10_000);
    const sent = await call(base, 'POST', '/v1/transfers', { token: apiKey, headers: { 'idempotency-key': uuidv7() }, body: { from_user_id: alice, to_user_id: bob, amount: 1_234 } });
    expect(sent.status, sent.text).toBe(201);
    const events = await api('GET', '/v1/webhook_events?type=transfer.completed&limit=1', { token: apiKey });
    const eventId = events.body.data[0].id as string;
    const [request] = await deliveredTo('/transfers', eventId);
    expect(() => stripe.webhooks.signature!.verifyHeader(request!.body, request!.headers['x-wallet-signature'] as string, endpoint.secret, 300)).not.toThrow();
    expect(JSON.parse(request!.body)).toMatchObject({ id: eventId, type: 'transfer.completed', tenant_id: tenantId, data: { transfer: { id: sent.body.id, from_user_id: alice, to_user_id: bob, amount: 1_234, status: 'completed' } } });
  });

  it('redelivers an event by hand with a fresh signature, and answers another tenant\'s event with 404', async () => {
    const endpoint = await register('/redeliver', { event_filters: ['fee_plan.*'] });
    const eventId = await changeFeePlan();
    await deliveredTo('/redeliver', eventId);
    const accepted = await api('POST', `/v1/webhook_events/${eventId}/redeliver`, { token: apiKey, body: { endpoint_id: endpoint.id } });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body).toEqual({ event_id: eventId, deliveries: [{ id: expect.any(String), endpoint_id: endpoint.id }] });
    const [first, second] = await deliveredTo('/redeliver', eventId, 2);
    expect(second!.body).toBe(first!.body);
    expect(() => stripe.webhooks.signature!.verifyHeader(second!.body, second!.headers['x-wallet-signature'] as string, endpoint.secret, 300)).not.toThrow();
    const attempts = await api('GET', '/v1/webhook_deliveries?limit=100', { token: apiKey });
    const mine = attempts.body.data.filter((a: { endpoint_id: string }) => a.endpoint_id === endpoint.id);
    expect(mine.map((a: { manual: boolean; delivery_id: string }) => a.manual)).toEqual([true, false]);
    expect(mine[0].delivery_id).toBe(accepted.body.deliveries[0].id);

    expectProblem(await api('POST', `/v1/webhook_events/${eventId}/redeliver`, { token: otherKey, body: {} }), 'not_found');
    expectProblem(await api('POST', `/v1/webhook_events/${uuidv7()}/redeliver`, { token: apiKey, body: {} }), 'not_found');
    const foreignEndpoint = (await api('POST', '/v1/webhook_endpoints', { token: otherKey, body: { url: receiver.route('/other-tenant') } })).body.id;
    expectProblem(await api('POST', `/v1/webhook_events/${eventId}/redeliver`, { token: apiKey, body: { endpoint_id: foreignEndpoint } }), 'not_found');
    expectProblem(await api('POST', `/v1/webhook_events/${eventId}/redeliver`, { token: readKey, body: {} }), 'insufficient_scope');
  });

  it("records each attempt's request headers and the receiver's bounded answer, lists one event's attempts by event_id, and never stores a secret", async () => {
    const long = JSON.stringify({ received: true, pad: 'é'.repeat(2_000) });
    const path = '/answers';
    const endpoint = await register(path, { event_filters: ['fee_plan.*'] });
    // A rotation with an overlap: attempts are signed with both secrets, and neither may be stored.
    const rotated = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { token: apiKey, key: uuidv7(), body: { overlap_seconds: 3_600 } });
    expect(rotated.status, rotated.text).toBe(200);
    const secrets = [endpoint.secret, rotated.body.secret as string];
    const before = await changeFeePlan();
    await deliveredTo(path, before);
    receiver.route(path, { script: [{ status: 202, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', 'set-cookie': 'session=abc' }, body: long }, { status: 400, body: 'bad signature?' }] });
    const eventId = await changeFeePlan();
    expect(eventId).not.toBe(before);
    const [first] = await deliveredTo(path, eventId);
    expect((await api('POST', `/v1/webhook_events/${eventId}/redeliver`, { token: apiKey, body: { endpoint_id: endpoint.id } })).status).toBe(202);
    const [, second] = await deliveredTo(path, eventId, 2);

    const listed = await api('GET', `/v1/webhook_deliveries?event_id=${eventId}&limit=100`, { token: apiKey });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.length).toBeGreaterThanOrEqual(2);
    for (const attempt of listed.body.data) expect(attempt.event_id).toBe(eventId);
    const mine = listed.body.data.filter((a: { endpoint_id: string }) => a.endpoint_id === endpoint.id);
    expect(mine.map((a: { manual: boolean }) => a.manual)).toEqual([true, false]);
    const [redelivered, automatic] = mine;
    // What was sent: the headers the receiver got, signatures included, verifiable against the event's envelope.
    for (const [attempt, request] of [[automatic, first!], [redelivered, second!]] as const) {
      const sent = attempt.request.headers as Record<string, string>;
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-wallet-signature', 'x-wallet-event-id', 'content-type', 'content-length', 'user-agent']) {
        expect(sent[name], name).toBe(request.headers[name]);
      }
      expect(sent['webhook-id']).toBe(eventId);
      expect(sent['webhook-signature']!.split(' ')).toHaveLength(2);
      for (const secret of secrets) expect(() => stripe.webhooks.signature!.verifyHeader(request.body, sent['x-wallet-signature']!, secret, 300)).not.toThrow();
    }
    // What came back: the status, a bounded set of headers, the body's first 2 KiB marked truncated.
    expect(automatic).toMatchObject({ status: 'succeeded', response_code: 202 });
    expect(automatic.response.headers).toMatchObject({ 'content-type': 'application/json', 'x-request-id': 'req-1' });
    expect(automatic.response.headers['set-cookie']).toBeUndefined();
    expect(automatic.response.body_truncated).toBe(true);
    expect(Buffer.byteLength(automatic.response.body)).toBeLessThanOrEqual(2_048 + 2);
    expect(automatic.response.body.startsWith('{"received":true,"pad":"éé')).toBe(true);
    expect(redelivered).toMatchObject({ status: 'failed', response_code: 400, response: { body: 'bad signature?', body_truncated: false } });
    expect(typeof redelivered.duration_ms).toBe('number');

    // The filter reads only that event's attempts; another tenant's filter on it finds none.
    const earlier = await api('GET', `/v1/webhook_deliveries?event_id=${before}&limit=100`, { token: apiKey });
    expect(earlier.body.data.filter((a: { endpoint_id: string }) => a.endpoint_id === endpoint.id)).toHaveLength(1);
    for (const attempt of earlier.body.data) expect(attempt.event_id).toBe(before);
    expect((await api('GET', `/v1/webhook_deliveries?event_id=${eventId}`, { token: otherKey })).body).toMatchObject({ data: [], next_cursor: null, has_more: false });
    expect((await api('GET', `/v1/webhook_deliveries?event_id=${uuidv7()}`, { token: apiKey })).body).toMatchObject({ data: [], next_cursor: null, has_more: false });
    expectProblem(await api('GET', '/v1/webhook_deliveries?event_id=nope', { token: apiKey }), 'invalid_request');
    // Paging stays inside the event.
    const one = await api('GET', `/v1/webhook_deliveries?event_id=${eventId}&limit=1`, { token: apiKey });
    expect(one.status, one.text).toBe(200);
    expect(one.body.data).toEqual([listed.body.data[0]]);
    const next = await api('GET', `/v1/webhook_deliveries?event_id=${eventId}&limit=1&cursor=${encodeURIComponent(one.body.next_cursor)}`, { token: apiKey });
    expect(next.status, next.text).toBe(200);
    expect(next.body.data).toEqual([listed.body.data[1]]);
    expectProblem(await api('GET', `/v1/webhook_deliveries?event_id=${before}&cursor=${encodeURIComponent(one.body.next_cursor)}`, { token: apiKey }), 'invalid_request');

    // No secret in any answer, nor in any item of the event's deliveries and attempts.
    const stored = [];
    for (const pk of [`DELIVERY#${eventId}#${endpoint.id}`, `DELIVERY#${eventId}#${endpoint.id}#${redelivered.delivery_id}`]) {
      stored.push(...((await documents.send(new QueryCommand({ TableName: platform.tables.wallet.name, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }))).Items ?? []));
    }
    expect(stored.filter((item) => item.entity === 'webhook_attempt')).toHaveLength(2);
    expect(stored.filter((item) => item.entity === 'webhook_attempt').map((item) => item.request.headers['webhook-id'])).toEqual([eventId, eventId]);
    for (const secret of secrets) {
      for (const text of [listed.text, JSON.stringify(stored)]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.replace(/^whsec_/, ''));
      }
    }
  });

  it('sends each endpoint only the types its filters name', async () => {
    await register('/only-topups', { event_filters: ['topup.*'] });
    await register('/fee-family', { event_filters: ['fee_plan.*'] });
    const eventId = await changeFeePlan();
    expect(await deliveredTo('/fee-family', eventId)).toHaveLength(1);
    expect(received('/only-topups')).toEqual([]);
  });

  it('stops deliveries to a deleted endpoint', async () => {
    const endpoint = await register('/deleted-before', { event_filters: ['fee_plan.set'] });
    const witness = await register('/witness', { event_filters: ['fee_plan.set'] });
    expect((await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { token: apiKey })).status).toBe(200);
    const eventId = await changeFeePlan();
    await deliveredTo('/witness', eventId);
    expect(witness.id).toBeDefined();
    expect(received('/deleted-before')).toEqual([]);
  });
});

describe('merchant endpoints', () => {
  it("deliver only the merchant families of the endpoint's own client; tenant endpoints receive merchants' events too", async () => {
    const merchant = await register('/merchant-a', {}, merchantA, `/v1/clients/${clientA}/webhook_endpoints`);
    expect(merchant.client_id).toBe(clientA);
    const tenantWide = await register('/tenant-all');
    const ordersOfA = await merchantEvent('order.created', clientA);
    const ordersOfB = await merchantEvent('order.created', clientB);
    const productOfA = await merchantEvent('product.created', clientA);
    const feePlan = await changeFeePlan();

    for (const event of [ordersOfA.id, ordersOfB.id, productOfA.id, feePlan]) await deliveredTo('/tenant-all', event);
    expect(received('/merchant-a').map((r) => r.headers['x-wallet-event-id']).sort()).toEqual([ordersOfA.id, productOfA.id].sort());
    for (const request of received('/merchant-a')) {
      expect(JSON.parse(request.body).client_id).toBe(clientA);
      expect(() => stripe.webhooks.signature!.verifyHeader(request.body, request.headers['x-wallet-signature'] as string, merchant.secret, 300)).not.toThrow();
    }
    expect(tenantWide.id).toBeDefined();

    const attempts = await api('GET', `/v1/clients/${clientA}/webhook_deliveries`, { token: merchantA });
    expect(attempts.status, attempts.text).toBe(200);
    expect(attempts.body.data).toHaveLength(2);
    for (const attempt of attempts.body.data) expect(attempt).toMatchObject({ endpoint_id: merchant.id, client_id: clientA, status: 'succeeded' });
    // By event: the merchant's attempts of its own event, none of the tenant's event its endpoints never received.
    const ofOrder = await api('GET', `/v1/clients/${clientA}/webhook_deliveries?event_id=${ordersOfA.id}`, { token: merchantA });
    expect(ofOrder.body.data).toEqual([expect.objectContaining({ event_id: ordersOfA.id, endpoint_id: merchant.id, response: expect.objectContaining({ body: 'accepted' }) })]);
    expect((await api('GET', `/v1/clients/${clientA}/webhook_deliveries?event_id=${feePlan}`, { token: merchantA })).body.data).toEqual([]);
    // The tenant's listing by event holds its own endpoints' attempts, not the merchant's.
    const tenantOfOrder = await api('GET', `/v1/webhook_deliveries?event_id=${ordersOfA.id}`, { token: apiKey });
    const tenantEndpoints = tenantOfOrder.body.data.map((a: { endpoint_id: string }) => a.endpoint_id);
    expect(tenantEndpoints).toContain(tenantWide.id);
    expect(tenantEndpoints).not.toContain(merchant.id);
    // Not among the tenant's own endpoints and attempts.
    expect((await api('GET', '/v1/webhook_endpoints', { token: apiKey })).body.map((e: { id: string }) => e.id)).not.toContain(merchant.id);
    expect((await api('GET', '/v1/webhook_deliveries?limit=100', { token: apiKey })).body.data.map((a: { endpoint_id: string }) => a.endpoint_id)).not.toContain(merchant.id);
  });

  it('accept filters outside the merchant families and receive only their families whatever the filters say', async () => {
    const wide = await api('POST', `/v1/clients/${clientA}/webhook_endpoints`, { token: merchantA, body: { url: receiver.route('/m-wide'), event_filters: ['fee_plan.set', 'order.*'] } });
    expect(wide.status, wide.text).toBe(201);
    expect(wide.body.event_filters).toEqual(['fee_plan.set', 'order.*']);
    const order = await merchantEvent('order.created', clientA);
    const feePlan = await changeFeePlan();
    await deliveredTo('/m-wide', order.id);
    // The tenant's event reaches a tenant endpoint, never the merchant's, whatever its filters say.
    const witness = await register('/m-wide-witness');
    const later = await changeFeePlan();
    await deliveredTo('/m-wide-witness', later);
    expect(received('/m-wide').map((r) => r.headers['x-wallet-event-id'])).toEqual([order.id]);
    expect(feePlan).toBeDefined();
    expect(witness.id).toBeDefined();
  });

  it('are read and updated through their client: another client or tenant answers as if absent', async () => {
    const merchant = await register('/merchant-read', { description: 'shop' }, merchantA, `/v1/clients/${clientA}/webhook_endpoints`);
    const path = `/v1/clients/${clientA}/webhook_endpoints/${merchant.id}`;
    const got = await api('GET', path, { token: merchantA });
    expect(got.status, got.text).toBe(200);
    expect(got.body).toMatchObject({ id: merchant.id, client_id: clientA, description: 'shop' });
    const changed = await api('PATCH', path, { token: merchantA, body: { description: 'renamed', event_filters: ['order.*'] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: merchant.id, client_id: clientA, description: 'renamed', event_filters: ['order.*'] });
    // Through another client (its own key), or as the tenant's own endpoint, it is not there.
    expectProblem(await api('GET', `/v1/clients/${clientB}/webhook_endpoints/${merchant.id}`, { token: merchantB }), 'not_found');
    expectProblem(await api('PATCH', `/v1/clients/${clientB}/webhook_endpoints/${merchant.id}`, { token: merchantB, body: { description: 'mine' } }), 'not_found');
    expectProblem(await api('GET', `/v1/webhook_endpoints/${merchant.id}`, { token: apiKey }), 'not_found');
    expectProblem(await api('GET', path, { token: merchantB }), 'not_client_member');
    expectProblem(await api('GET', path, { token: otherKey }), 'client_not_found');
    expect((await api('GET', path, { token: tenantStaff })).body.description).toBe('renamed');
  });

  it('need authority over the client: its own key with the webhook scope, or tenant staff with clients:manage', async () => {
    const url = receiver.route('/m-authority');
    expectProblem(await api('POST', `/v1/clients/${clientB}/webhook_endpoints`, { token: merchantA, body: { url } }), 'not_client_member');
    expectProblem(await api('GET', `/v1/clients/${clientA}/webhook_endpoints`, { token: readKey }), 'not_client_member');
    expectProblem(await api('GET', `/v1/clients/${uuidv7()}/webhook_endpoints`, { token: apiKey }), 'client_not_found');
    expectProblem(await api('GET', `/v1/webhook_endpoints`, { token: merchantA }), 'forbidden');
    expectProblem(await api('GET', `/v1/clients/${clientA}/webhook_deliveries`, { token: merchantB }), 'not_client_member');
    expectProblem(await api('POST', `/v1/clients/${clientA}/webhook_endpoints`, { token: merchantWithoutWebhookScope, body: { url } }), 'insufficient_scope');

    // Staff act live: https only (a name is not resolved at creation). A reserved .invalid name and a
    // family no event of this file is in: nothing is ever delivered to it.
    const byStaff = await api('POST', `/v1/clients/${clientA}/webhook_endpoints`, { token: tenantStaff, body: { url: 'https://merchant-a.example.invalid/hooks', event_filters: ['import.*'] } });
    expect(byStaff.status, byStaff.text).toBe(201);
    expect(byStaff.body.livemode).toBe(true);
    const listed = await api('GET', `/v1/clients/${clientA}/webhook_endpoints`, { token: merchantA });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(byStaff.body.id);
    expect(listed.text).not.toContain('whsec_');

    expectProblem(await api('DELETE', `/v1/clients/${clientB}/webhook_endpoints/${byStaff.body.id}`, { token: merchantB }), 'not_found');
    expectProblem(await api('DELETE', `/v1/webhook_endpoints/${byStaff.body.id}`, { token: apiKey }), 'not_found');
    const deleted = await api('DELETE', `/v1/clients/${clientA}/webhook_endpoints/${byStaff.body.id}`, { token: merchantA });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.status).toBe('deleted');
  });
});

describe('event history', () => {
  it('lists envelopes newest first by type or family and creation time, page by page', async () => {
    const older = await merchantEvent('order.paid', clientA);
    const newer = await merchantEvent('order.canceled', clientA);
    const family = await api('GET', '/v1/webhook_events?type=order.*&limit=100', { token: readKey });
    expect(family.status, family.text).toBe(200);
    const ids = family.body.data.map((e: { id: string }) => e.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(ids.indexOf(older.id)).toBeGreaterThanOrEqual(0);
    for (const event of family.body.data) expect(event.type.startsWith('order.')).toBe(true);

    const exact = await api('GET', '/v1/webhook_events?type=order.paid&limit=100', { token: readKey });
    expect(exact.body.data.map((e: { id: string }) => e.id)).toContain(older.id);
    expect(exact.body.data.map((e: { id: string }) => e.id)).not.toContain(newer.id);

    const window = await api('GET', `/v1/webhook_events?created_after=${encodeURIComponent(older.created_at)}&limit=100`, { token: readKey });
    expect(window.body.data.map((e: { id: string }) => e.id)).toContain(newer.id);
    expect(window.body.data.map((e: { id: string }) => e.id)).not.toContain(older.id);
    const before = await api('GET', `/v1/webhook_events?created_before=${encodeURIComponent(newer.created_at)}&type=order.*&limit=100`, { token: readKey });
    expect(before.body.data.map((e: { id: string }) => e.id)).not.toContain(newer.id);
    const future = await api('GET', `/v1/webhook_events?created_after=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`, { token: readKey });
    expect(future.body).toEqual({ data: [], has_more: false, next_cursor: null });

    const first = await api('GET', '/v1/webhook_events?limit=1', { token: readKey });
    const second = await api('GET', `/v1/webhook_events?limit=1&cursor=${first.body.next_cursor}`, { token: readKey });
    expect(second.body.data[0].id < first.body.data[0].id).toBe(true);
    expectProblem(await api('GET', '/v1/webhook_events?cursor=bm9wZQ', { token: readKey }), 'invalid_request');
    expectProblem(await api('GET', '/v1/webhook_events?type=order.shipped', { token: readKey }), 'invalid_request');

    const foreign = await api('GET', '/v1/webhook_events?limit=100', { token: otherKey });
    expect(foreign.body.data.map((e: { id: string }) => e.id)).not.toContain(newer.id);
  });
});
