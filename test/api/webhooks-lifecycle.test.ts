import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { randomBytes } from 'node:crypto';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { verifyWebhook } from '../../shared/wallet/webhooks/verify';
import { webhookKeys } from '../../shared/wallet/webhooks/keys';
import { QueryCommand, UpdateCommand } from '../../shared/aws/dynamodb';
import { localDocumentClient } from '../../local/dynamodb';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { startReceiver, type ReceivedRequest, type Receiver } from '../integration/webhooks-receiver';
import { until } from '../support/time';
import { createTenant } from '../support/tenants';
import { endpointRegistrar, feePlanChanger, requestsReceived } from '../support/webhooks';

/**
 * The webhook lifecycle over HTTP, like an integrator, on a platform whose clock the test moves:
 * Standard Webhooks headers checked by the `standardwebhooks` package beside the `stripe` one,
 * secret rotation with an overlap, receivers' 410, Retry-After and redirects, an endpoint disabled
 * after failing for five simulated days and recovered by window, and the stats view. Events come
 * from PUT /v1/fee_plan (fee_plan.set); the relay runs on the real stream; the delivery queue is
 * drained by hand after each move of the clock, so days of retries take seconds. Receivers listen
 * on 127.0.0.1.
 */

const stripe = new Stripe('sk_test_unused');
const clock = new ManualClock(new Date());

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let receiver: Receiver;
/** Tenant A: most tests; B: another tenant's view; C: the outage, alone with its endpoints; D: ordered recovery. */
let keyA: string;
let readKeyA: string;
let keyB: string;
let keyC: string;
let keyD: string;
let clientA: string;
let merchantA: string;
let merchantB: string;

interface Created {
  id: string;
  secret: string;
  standard_webhooks_secret: string;
}

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startTestPlatform({ clock });
  // Deliveries are made only when the test drains the queue, at the clock's time.
  await platform.queues.stop();
  base = platform.urls.public;
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const tenant = (name: string) => createTenant(api, platformStaff, name);
  const [a, b, c, d] = [await tenant('A'), await tenant('B'), await tenant('C'), await tenant('D')];
  keyA = await apiKeyFor(platform, a, [...TENANT_SCOPES]);
  readKeyA = await apiKeyFor(platform, a, ['webhooks:read']);
  keyB = await apiKeyFor(platform, b, [...TENANT_SCOPES]);
  keyC = await apiKeyFor(platform, c, [...TENANT_SCOPES]);
  keyD = await apiKeyFor(platform, d, [...TENANT_SCOPES]);
  clientA = (await clientOf(base, keyA)).id;
  const clientB = (await clientOf(base, keyA)).id;
  merchantA = await apiKeyFor(platform, a, ['webhooks:manage'], { clientId: clientA });
  merchantB = await apiKeyFor(platform, a, ['webhooks:manage'], { clientId: clientB });
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

const register = endpointRegistrar(api, () => receiver, () => keyA);
const changeFeePlan = feePlanChanger(api, () => keyA);
const received = requestsReceived(() => receiver, 'webhook-id');

/** Drains the queue (real time passes for the stream relay) until `path` has `count` requests of the event. */
async function drainedTo(path: string, eventId: string | undefined, count = 1): Promise<ReceivedRequest[]> {
  await until(
    async () => {
      await platform.queues.drain();
      return received(path, eventId).length >= count;
    },
    15_000,
    `${count} request(s) of ${eventId ?? 'any event'} at ${path}`,
  );
  return received(path, eventId);
}

/** Lets the relay finish what the stream carries, then delivers what is due. */
async function settle(): Promise<void> {
  await platform.streams!.settle();
  await platform.queues.drain();
}

/** Moves the clock in steps no longer than SQS's 900 s delay, delivering what falls due. */
async function advanceInSteps(seconds: number): Promise<void> {
  for (let left = seconds; left > 0; left -= 900) {
    clock.advance(Math.min(900, left) * 1000);
    await platform.queues.drain();
  }
}

const signatureOf = (request: ReceivedRequest) => request.headers['x-wallet-signature'] as string;
const headersOf = (request: ReceivedRequest) => ({
  'webhook-id': request.headers['webhook-id'] as string,
  'webhook-timestamp': request.headers['webhook-timestamp'] as string,
  'webhook-signature': request.headers['webhook-signature'] as string,
});

/** The standardwebhooks package reads Date.now() for its tolerance: it sees the test's clock. */
function verifiedByStandardWebhooks(request: ReceivedRequest, secret: string, options?: { format: 'raw' }): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: clock.now() });
  try {
    return new Webhook(secret, options).verify(request.body, headersOf(request));
  } finally {
    vi.useRealTimers();
  }
}

const verifiedByStripe = (request: ReceivedRequest, secret: string) => stripe.webhooks.signature!.verifyHeader(request.body, signatureOf(request), secret, 300, undefined, clock.now().getTime());

async function endpointNamed(id: string, token = keyA): Promise<Record<string, unknown>> {
  const listed = await api('GET', '/v1/webhook_endpoints', { token });
  expect(listed.status, listed.text).toBe(200);
  return listed.body.find((endpoint: { id: string }) => endpoint.id === id);
}

async function auditActions(token = keyA): Promise<string[]> {
  const log = await api('GET', '/v1/audit_log?limit=100', { token });
  expect(log.status, log.text).toBe(200);
  return log.body.data.map((record: { action: string }) => record.action);
}

describe('Standard Webhooks alongside X-Wallet-Signature', () => {
  it('signs every attempt so that the standardwebhooks package, stripe and verifyWebhook accept it, with webhook-id the event id', async () => {
    const endpoint = await register('/standard', { event_filters: ['fee_plan.set'] });
    receiver.route('/standard', { script: [500] });
    expect(endpoint.standard_webhooks_secret).toBe(endpoint.secret);
    const eventId = await changeFeePlan();
    await drainedTo('/standard', eventId);
    await advanceInSteps(60);
    const requests = await drainedTo('/standard', eventId, 2);

    for (const request of requests) {
      expect(request.headers['webhook-id']).toBe(eventId);
      expect(request.headers['x-wallet-event-id']).toBe(eventId);
      expect(request.headers['webhook-timestamp']).toBe(/t=(\d+)/.exec(signatureOf(request))![1]);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // The reference verifier, with the secret as shown.
      expect(verifiedByStandardWebhooks(request, endpoint.secret)).toMatchObject({ id: eventId, type: 'fee_plan.set' });
      expect(() => verifiedByStripe(request, endpoint.secret)).not.toThrow();
      expect(verifyWebhook(request.body, signatureOf(request), endpoint.secret, { now: clock.now() }).ok).toBe(true);
      expect(() => verifiedByStandardWebhooks(request, `whsec_${Buffer.from('whsec_other').toString('base64')}`)).toThrow(/No matching signature/);
    }
    // Retries carry the same webhook-id (receivers deduplicate on it) and a new timestamp.
    expect(requests[1]!.headers['webhook-timestamp']).not.toBe(requests[0]!.headers['webhook-timestamp']);
  });
});

describe('one secret for every verifier', () => {
  it('shows a secret that standardwebhooks takes as shown for webhook-signature and stripe for X-Wallet-Signature', async () => {
    const endpoint = await register('/one-secret', { event_filters: ['fee_plan.set'] });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    // Deprecated: the same string.
    expect(endpoint.standard_webhooks_secret).toBe(endpoint.secret);
    const eventId = await changeFeePlan();
    const [request] = await drainedTo('/one-secret', eventId);

    expect(verifiedByStandardWebhooks(request!, endpoint.secret)).toMatchObject({ id: eventId, type: 'fee_plan.set' });
    expect(stripe.webhooks.constructEvent(request!.body, signatureOf(request!), endpoint.secret, 300, undefined, clock.now().getTime())).toMatchObject({ id: eventId });
    expect(verifyWebhook(request!.body, signatureOf(request!), endpoint.secret, { now: clock.now() }).ok).toBe(true);
    // webhook-signature is keyed by the decoded bytes, not the text: no raw-format verifier matches it.
    expect(() => verifiedByStandardWebhooks(request!, endpoint.secret, { format: 'raw' })).toThrow(/No matching signature/);
  });

  it('keeps signing an endpoint created before (a base64url secret) as it did, and rotates it to a secret of the new form', async () => {
    const endpoint = await register('/legacy-secret', { event_filters: ['fee_plan.set'] });
    // The secret as endpoints were issued before: whsec_ + base64url of 32 bytes (43 characters).
    const legacy = `whsec_${randomBytes(32).toString('base64url')}`;
    const legacyStandard = `whsec_${Buffer.from(legacy).toString('base64')}`;
    await localDocumentClient(platform.dynamodbEndpoint).send(
      new UpdateCommand({ TableName: platform.tables.wallet.name, Key: webhookKeys.endpoint(endpoint.id), UpdateExpression: 'SET secret = :legacy', ExpressionAttributeValues: { ':legacy': legacy } }),
    );
    const before = await changeFeePlan();
    const [old] = await drainedTo('/legacy-secret', before);
    // What its integrator holds keeps working: the secret for X-Wallet-Signature, the
    // standard_webhooks_secret it was shown (or the secret as raw bytes) for webhook-signature.
    expect(stripe.webhooks.constructEvent(old!.body, signatureOf(old!), legacy, 300, undefined, clock.now().getTime())).toMatchObject({ id: before });
    expect(verifiedByStandardWebhooks(old!, legacyStandard)).toMatchObject({ id: before });
    expect(verifiedByStandardWebhooks(old!, legacy, { format: 'raw' })).toMatchObject({ id: before });

    const rotated = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { token: keyA, key: uuidv7(), body: { overlap_seconds: 3_600 } });
    expect(rotated.status, rotated.text).toBe(200);
    const next = rotated.body as Created;
    expect(next.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(next.standard_webhooks_secret).toBe(next.secret);
    const during = await changeFeePlan();
    const [overlapping] = await drainedTo('/legacy-secret', during);
    // Each secret verifies on its own during the overlap, each in the form its integrator has.
    expect(verifiedByStandardWebhooks(overlapping!, next.secret)).toMatchObject({ id: during });
    expect(verifiedByStandardWebhooks(overlapping!, legacyStandard)).toMatchObject({ id: during });
    for (const secret of [next.secret, legacy]) expect(() => verifiedByStripe(overlapping!, secret)).not.toThrow();
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap and with the new one only after it', async () => {
    const created = await register('/rotating', { event_filters: ['fee_plan.set'] });
    const path = `/v1/webhook_endpoints/${created.id}/rotate_secret`;
    expectProblem(await api('POST', path, { body: { overlap_seconds: 3_600 } }), 'unauthenticated');
    expectProblem(await api('POST', path, { token: keyA, body: { overlap_seconds: 3_600 } }), 'invalid_request');
    for (const overlap_seconds of [-1, 604_801, 1.5, '60']) {
      expectProblem(await api('POST', path, { token: keyA, key: uuidv7(), body: { overlap_seconds } }), 'invalid_request');
    }
    expectProblem(await api('POST', path, { token: keyB, key: uuidv7(), body: {} }), 'not_found');
    expectProblem(await api('POST', path, { token: readKeyA, key: uuidv7(), body: {} }), 'insufficient_scope');
    expect(await endpointNamed(created.id)).not.toHaveProperty('previous_secret_expires_at');

    const key = uuidv7();
    const rotated = await api('POST', path, { token: keyA, key, body: { overlap_seconds: 3_600 } });
    expect(rotated.status, rotated.text).toBe(200);
    const next = rotated.body as Created & { previous_secret_expires_at: string };
    expect(next.id).toBe(created.id);
    expect(next.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(next.secret).not.toBe(created.secret);
    expect(next.previous_secret_expires_at).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());
    // A retry answers the same secret: it does not rotate twice. Another body under the key is refused.
    const replay = await api('POST', path, { token: keyA, key, body: { overlap_seconds: 3_600 } });
    expect(replay.text).toBe(rotated.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await api('POST', path, { token: keyA, key, body: { overlap_seconds: 60 } }), 'idempotency_key_reuse');
    const listed = await api('GET', '/v1/webhook_endpoints', { token: keyA });
    expect(listed.text).not.toContain('whsec_');
    expect(await endpointNamed(created.id)).toMatchObject({ status: 'active', previous_secret_expires_at: next.previous_secret_expires_at });
    expect(await auditActions()).toContain('webhook_endpoint.rotate_secret');

    // During the overlap: two signatures in each header, and each secret verifies on its own.
    const during = await changeFeePlan();
    const [overlapping] = await drainedTo('/rotating', during);
    expect(signatureOf(overlapping!)).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(overlapping!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [created, next]) {
      expect(() => verifiedByStripe(overlapping!, secret.secret)).not.toThrow();
      expect(verifyWebhook(overlapping!.body, signatureOf(overlapping!), secret.secret, { now: clock.now() }).ok).toBe(true);
      expect(verifiedByStandardWebhooks(overlapping!, secret.standard_webhooks_secret)).toMatchObject({ id: during });
    }

    // After it: the new secret only.
    await advanceInSteps(3_601);
    const after = await changeFeePlan();
    const [single] = await drainedTo('/rotating', after);
    expect(signatureOf(single!)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => verifiedByStripe(single!, next.secret)).not.toThrow();
    expect(verifiedByStandardWebhooks(single!, next.standard_webhooks_secret)).toMatchObject({ id: after });
    expect(() => verifiedByStripe(single!, created.secret)).toThrow();
    expect(() => verifiedByStandardWebhooks(single!, created.standard_webhooks_secret)).toThrow(/No matching signature/);
    expect(verifyWebhook(single!.body, signatureOf(single!), created.secret, { now: clock.now() })).toEqual({ ok: false, reason: 'mismatch' });
    expect(await endpointNamed(created.id)).not.toHaveProperty('previous_secret_expires_at');
  });

  it("rotates a merchant's endpoint under its client path; overlap 0 retires the old secret at once", async () => {
    const endpoint = await register('/merchant-rotating', { event_filters: ['order.*'] }, merchantA, `/v1/clients/${clientA}/webhook_endpoints`);
    const path = `/v1/clients/${clientA}/webhook_endpoints/${endpoint.id}/rotate_secret`;
    expectProblem(await api('POST', path, { token: merchantB, key: uuidv7(), body: {} }), 'not_client_member');
    expectProblem(await api('POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { token: keyA, key: uuidv7(), body: {} }), 'not_found');
    const rotated = await api('POST', path, { token: merchantA, key: uuidv7(), body: { overlap_seconds: 0 } });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ id: endpoint.id, client_id: clientA });
    expect(rotated.body).not.toHaveProperty('previous_secret_expires_at');
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    // Without a body the overlap is the default 24 h.
    const again = await api('POST', path, { token: merchantA, key: uuidv7() });
    expect(again.status, again.text).toBe(200);
    expect(again.body.previous_secret_expires_at).toBe(new Date(clock.now().getTime() + 86_400_000).toISOString());
  });
});

describe("receivers' answers", () => {
  it("disables an endpoint answering 410 Gone at once and tells the tenant's other endpoints, never the disabled one", async () => {
    const gone = await register('/gone', { event_filters: ['fee_plan.set', 'webhook_endpoint.*'] });
    receiver.route('/gone', { thenStatus: 410 });
    const observer = await register('/observer-a', { event_filters: ['webhook_endpoint.disabled'] });
    const eventId = await changeFeePlan();
    await drainedTo('/gone', eventId);
    const [notice] = await drainedTo('/observer-a', undefined);
    const body = JSON.parse(notice!.body);
    expect(body).toMatchObject({ type: 'webhook_endpoint.disabled', data: { reason: 'gone', webhook_endpoint: { id: gone.id, status: 'disabled', disabled_reason: 'gone' } } });
    expect(() => verifiedByStripe(notice!, observer.secret)).not.toThrow();
    expect(await endpointNamed(gone.id)).toMatchObject({ status: 'disabled', disabled_reason: 'gone', disabled_at: clock.now().toISOString() });
    const attempts = await api('GET', '/v1/webhook_deliveries?limit=100', { token: keyA });
    expect(attempts.body.data.find((a: { endpoint_id: string }) => a.endpoint_id === gone.id)).toMatchObject({ status: 'failed', response_code: 410, next_attempt_at: null });
    expect(await auditActions()).toContain('webhook_endpoint.disable');

    // Nothing more is sent to it: no retry, no later event, not its own notice.
    await register('/witness-410', { event_filters: ['fee_plan.set'] });
    const later = await changeFeePlan();
    await drainedTo('/witness-410', later);
    await advanceInSteps(86_400);
    await settle();
    expect(received('/gone')).toHaveLength(1);
    expectProblem(await api('POST', `/v1/webhook_events/${later}/redeliver`, { token: keyA, body: { endpoint_id: gone.id } }), 'invalid_request');
  });

  it('waits at least what Retry-After asks on a 503 (seconds) and a 429 (HTTP date) before the next attempt', async () => {
    await register('/busy', { event_filters: ['fee_plan.set'] });
    receiver.route('/busy', { script: [{ status: 503, headers: { 'retry-after': '120' } }] });
    const eventId = await changeFeePlan();
    await drainedTo('/busy', eventId);
    // The schedule alone would try again after 60 s.
    await advanceInSteps(119);
    expect(received('/busy', eventId)).toHaveLength(1);
    // The next answer: 429 until a date about 600 s after it (the schedule says 300 s).
    receiver.route('/busy', { script: [{ status: 429, headers: { 'retry-after': new Date(clock.now().getTime() + 1_000 + 600_000).toUTCString() } }] });
    await advanceInSteps(1);
    expect(received('/busy', eventId)).toHaveLength(2);
    await advanceInSteps(598);
    expect(received('/busy', eventId)).toHaveLength(2);
    await advanceInSteps(2);
    expect(received('/busy', eventId)).toHaveLength(3);

    const attempts = (await api('GET', '/v1/webhook_deliveries?limit=100', { token: keyA })).body.data.filter((a: { event_id: string }) => a.event_id === eventId);
    const waited = (code: number) => {
      const attempt = attempts.find((a: { response_code: number }) => a.response_code === code);
      return (Date.parse(attempt.next_attempt_at) - Date.parse(attempt.attempted_at)) / 1000;
    };
    expect(waited(503)).toBe(120);
    expect(waited(429)).toBeGreaterThanOrEqual(599);
  });

  it('counts a redirect as a failed attempt and never follows it', async () => {
    receiver.route('/moved-to');
    await register('/moved', { event_filters: ['fee_plan.set'] });
    receiver.route('/moved', { script: [{ status: 301, headers: { location: receiver.route('/moved-to') } }] });
    const eventId = await changeFeePlan();
    await drainedTo('/moved', eventId);
    await settle();
    expect(received('/moved-to')).toEqual([]);
    const attempts = await api('GET', '/v1/webhook_deliveries?limit=100', { token: keyA });
    expect(attempts.body.data.find((a: { event_id: string; response_code: number }) => a.event_id === eventId && a.response_code === 301)).toMatchObject({ status: 'failed', next_attempt_at: expect.any(String) });
  });
});

describe('disabling and recovery', () => {
  it('disables an endpoint failing for 5 days, keeps the outage as skipped deliveries, and recovers each event exactly once', async () => {
    const outage = await register('/outage', { event_filters: ['fee_plan.set'] }, keyC);
    receiver.route('/outage', { thenStatus: 500 });
    await register('/observer-c', { event_filters: ['webhook_endpoint.disabled'] }, keyC);
    const start = clock.now();
    const events: string[] = [];

    // Ten deliveries over five days, every attempt failing: still enabled.
    for (let day = 0; day < 10; day += 1) {
      events.push(await changeFeePlan(keyC));
      await drainedTo('/outage', events.at(-1));
      await advanceInSteps(12 * 3_600);
    }
    expect(await endpointNamed(outage.id, keyC)).toMatchObject({ status: 'active' });
    const failing = await api('GET', `/v1/webhook_endpoints/${outage.id}/stats`, { token: keyC });
    expect(failing.status, failing.text).toBe(200);
    expect(failing.body).toMatchObject({ endpoint_id: outage.id, successes: 0, failing_since: start.toISOString() });
    expect(failing.body.failures).toBe(failing.body.attempts);

    // Five days after the first failure, the next failure disables it.
    events.push(await changeFeePlan(keyC));
    await drainedTo('/outage', events.at(-1));
    const [notice] = await drainedTo('/observer-c', undefined);
    expect(JSON.parse(notice!.body)).toMatchObject({ type: 'webhook_endpoint.disabled', data: { reason: 'failing', webhook_endpoint: { id: outage.id } } });
    expect(await endpointNamed(outage.id, keyC)).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });

    // Events during the outage are kept, not sent.
    const sentBefore = received('/outage').length;
    for (let i = 0; i < 2; i += 1) {
      events.push(await changeFeePlan(keyC));
      await advanceInSteps(3_600);
    }
    await advanceInSteps(86_400);
    await settle();
    expect(received('/outage')).toHaveLength(sentBefore);

    // The receiver is back: recover everything since the first event.
    receiver.route('/outage', { thenStatus: 200 });
    const recoverPath = `/v1/webhook_endpoints/${outage.id}/recover`;
    expectProblem(await api('POST', recoverPath, { token: keyC, body: { since: new Date(clock.now().getTime() - 31 * 86_400_000).toISOString() } }), 'invalid_request');
    expectProblem(await api('POST', recoverPath, { token: keyC, body: { since: clock.now().toISOString(), until: start.toISOString() } }), 'invalid_request');
    expectProblem(await api('POST', recoverPath, { token: keyC, body: {} }), 'invalid_request');
    expectProblem(await api('POST', recoverPath, { token: keyA, body: { since: start.toISOString() } }), 'not_found');
    expect(await endpointNamed(outage.id, keyC)).toMatchObject({ status: 'disabled' });

    const recovered = await api('POST', recoverPath, { token: keyC, body: { since: new Date(start.getTime() - 60_000).toISOString() } });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body).toMatchObject({ endpoint: { id: outage.id, status: 'active' }, queued: events.length, next_since: null, until: clock.now().toISOString() });
    expect(recovered.body.endpoint).not.toHaveProperty('disabled_reason');
    expect(await auditActions(keyC)).toContain('webhook_endpoint.recover');

    const since = sentBefore;
    await until(
      async () => {
        await platform.queues.drain();
        return received('/outage').length - since >= events.length;
      },
      20_000,
      'every recovered event delivered',
    );
    // Under the original event ids, signed when sent.
    for (const request of received('/outage').slice(since)) expect(() => verifiedByStripe(request, outage.secret)).not.toThrow();

    // The last 24 h: the recovered successes; a day later, nothing.
    const stats = await api('GET', `/v1/webhook_endpoints/${outage.id}/stats`, { token: keyC });
    expect(stats.body.successes).toBe(events.length);
    expect(stats.body.attempts).toBe(stats.body.successes + stats.body.failures);
    expect(stats.body.failing_since).toBeNull();
    expect(stats.body.latency_ms.p50).toEqual(expect.any(Number));
    expect(stats.body.latency_ms.p99).toBeGreaterThanOrEqual(stats.body.latency_ms.p50);
    await advanceInSteps(2 * 86_400);
    await settle();
    const resent = received('/outage').slice(since);
    expect(resent.map((r) => r.headers['webhook-id']).sort()).toEqual([...events].sort());

    // Recovering the same window again sends nothing more.
    const again = await api('POST', recoverPath, { token: keyC, body: { since: new Date(start.getTime() - 60_000).toISOString() } });
    expect(again.body.queued).toBe(0);
    await advanceInSteps(3_600);
    await settle();
    expect(received('/outage').slice(since)).toHaveLength(events.length);
    // Delivered, they left the recovery index: only skipped and failed deliveries are in it.
    const document = localDocumentClient(platform.dynamodbEndpoint);
    const indexed = await document.send(new QueryCommand({ TableName: platform.tables.wallet.name, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': webhookKeys.deliveriesOf(outage.id) } }));
    expect(indexed.Items).toEqual([]);

    await advanceInSteps(26 * 3_600);
    const quiet = await api('GET', `/v1/webhook_endpoints/${outage.id}/stats`, { token: keyC });
    expect(quiet.body).toMatchObject({ attempts: 0, successes: 0, failures: 0, latency_ms: { p50: null, p99: null } });
    expectProblem(await api('GET', `/v1/webhook_endpoints/${outage.id}/stats`, { token: keyA }), 'not_found');
  });

  it('sends recovered events one at a time, oldest first, across recoveries, a failing one holding the next through its retry', async () => {
    const endpoint = await register('/ordered', { event_filters: ['fee_plan.set'] }, keyD);
    receiver.route('/ordered', { thenStatus: 410 });
    const start = clock.now();
    const events = [await changeFeePlan(keyD)];
    await drainedTo('/ordered', events[0]);
    await until(async () => (await endpointNamed(endpoint.id, keyD)).status === 'disabled', 15_000, 'disabled by the 410');
    // Kept while disabled: skipped deliveries, created a second apart.
    for (let i = 0; i < 4; i += 1) {
      clock.advance(1_000);
      events.push(await changeFeePlan(keyD));
    }
    clock.advance(1_000);
    await settle();
    expect(received('/ordered')).toHaveLength(1);

    // Back, slow to answer, and failing the first recovered attempt once.
    receiver.route('/ordered', { script: [500], thenStatus: 200, delayMs: 100 });
    // Two windows, the second recovered while the first is still going: it extends the same chain.
    const recover = async (body: { since: string; until?: string }) => {
      const recovered = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { token: keyD, body });
      expect(recovered.status, recovered.text).toBe(200);
      return recovered.body.queued as number;
    };
    const middle = new Date(start.getTime() + 3_000).toISOString();
    expect(await recover({ since: new Date(start.getTime() - 60_000).toISOString(), until: middle })).toBe(3);
    expect(await recover({ since: middle })).toBe(2);
    const sent = () => received('/ordered').slice(1);
    await until(
      async () => {
        await settle();
        return sent().length >= 1;
      },
      15_000,
      'the oldest recovered event sent',
    );
    // Its retry is due in 60 s: nothing newer goes before it.
    for (let i = 0; i < 3; i += 1) await settle();
    expect(sent().map((r) => r.headers['webhook-id'])).toEqual([events[0]]);

    await advanceInSteps(60);
    await until(
      async () => {
        await settle();
        return sent().length >= events.length + 1;
      },
      20_000,
      'every recovered event delivered',
    );
    await settle();
    expect(sent().map((r) => r.headers['webhook-id'])).toEqual([events[0], ...events]);
    expect(sent().map((r) => r.inFlight)).toEqual(Array(events.length + 1).fill(1));
  });

  it('returns the rest of a recovery to the recovery index when a recovered event disables the endpoint again, for the next recovery', async () => {
    const endpoint = await register('/ordered-gone', { event_filters: ['fee_plan.set'] }, keyD);
    receiver.route('/ordered-gone', { thenStatus: 410 });
    const start = clock.now();
    const events = [await changeFeePlan(keyD)];
    await drainedTo('/ordered-gone', events[0]);
    await until(async () => (await endpointNamed(endpoint.id, keyD)).status === 'disabled', 15_000, 'disabled by the 410');
    for (let i = 0; i < 3; i += 1) {
      clock.advance(1_000);
      events.push(await changeFeePlan(keyD));
    }
    clock.advance(1_000);
    await settle();

    // The second recovered event is answered 410 again: the two after it are not sent, but kept.
    receiver.route('/ordered-gone', { script: [200, 410], thenStatus: 200 });
    const recover = async () => {
      const recovered = await api('POST', `/v1/webhook_endpoints/${endpoint.id}/recover`, { token: keyD, body: { since: new Date(start.getTime() - 60_000).toISOString() } });
      expect(recovered.status, recovered.text).toBe(200);
      return recovered.body.queued as number;
    };
    expect(await recover()).toBe(4);
    const sent = () => received('/ordered-gone').slice(1).map((r) => r.headers['webhook-id']);
    await until(
      async () => {
        await settle();
        return sent().length >= 2 && (await endpointNamed(endpoint.id, keyD)).status === 'disabled';
      },
      15_000,
      'two recovered events sent, the endpoint disabled again',
    );
    for (let i = 0; i < 3; i += 1) await settle();
    expect(sent()).toEqual(events.slice(0, 2));

    expect(await recover()).toBe(3);
    await until(
      async () => {
        await settle();
        return sent().length >= 5;
      },
      15_000,
      'the rest recovered',
    );
    await settle();
    expect(sent()).toEqual([...events.slice(0, 2), ...events.slice(1)]);
  });

  it("recovers a merchant's endpoint under its client path, and answers a deleted endpoint with 404", async () => {
    const endpoint = await register('/merchant-recovering', { event_filters: ['order.*'] }, merchantA, `/v1/clients/${clientA}/webhook_endpoints`);
    const body = { since: new Date(clock.now().getTime() - 3_600_000).toISOString() };
    const path = `/v1/clients/${clientA}/webhook_endpoints/${endpoint.id}/recover`;
    expectProblem(await api('POST', path, { token: merchantB, body }), 'not_client_member');
    const recovered = await api('POST', path, { token: merchantA, body });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.body).toMatchObject({ endpoint: { id: endpoint.id, status: 'active' }, queued: 0, next_since: null });
    expect((await api('DELETE', `/v1/clients/${clientA}/webhook_endpoints/${endpoint.id}`, { token: merchantA })).status).toBe(200);
    expectProblem(await api('POST', path, { token: merchantA, body }), 'not_found');
  });
});
