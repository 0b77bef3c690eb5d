import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { startReceiver, type Receiver } from '../integration/webhooks-receiver';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { call, startTestPlatform } from '../support/platform';

/**
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS=false npm start` takes effect: the embedded platform no longer
 * overrides the developer's setting, so a sandbox endpoint on loopback is refused at delivery,
 * before any connection (the receiver, on 127.0.0.1, is never reached). And a live endpoint never
 * names localhost, however it is spelled.
 */

let platform: Platform;
let receiver: Receiver;
let apiKey: string;
let liveKey: string;
const api = apiClient(() => platform.urls.public);

beforeAll(async () => {
  // As `WEBHOOK_ALLOW_PRIVATE_TARGETS=false npm start` would set it (this file runs in its own process).
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false';
  platform = await startTestPlatform();
  receiver = await startReceiver();
  const operator = await staffToken(platform, { role: 'platform' });
  const tenantId = (await call(platform.urls.public, 'POST', '/v1/tenants', { token: operator, headers: { 'idempotency-key': uuidv7() }, body: { name: 'Closed', currency: 'USD' } })).body.id;
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  liveKey = await apiKeyFor(platform, tenantId, ['webhooks:manage'], { env: 'live' });
});
afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
});

describe('webhook targets', () => {
  it('honours WEBHOOK_ALLOW_PRIVATE_TARGETS=false: a loopback sandbox endpoint is refused at delivery and never reached', async () => {
    const endpoint = await api('POST', '/v1/webhook_endpoints', { token: apiKey, body: { url: receiver.route('/closed'), event_filters: ['fee_plan.set'] } });
    expect(endpoint.status, endpoint.text).toBe(201);

    expect((await api('PUT', '/v1/fee_plan', { token: apiKey, body: { p2p: { bps: 10, flat: 0, min_fee: 0 } } })).status).toBe(200);
    let attempts: { endpoint_id: string; error: string | null }[] = [];
    for (let i = 0; i < 100 && attempts.length === 0; i += 1) {
      await platform.streams?.settle(200);
      await platform.queues.drain();
      attempts = (await api('GET', '/v1/webhook_deliveries', { token: apiKey })).body.data.filter((a: { endpoint_id: string }) => a.endpoint_id === endpoint.body.id);
    }

    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts[0]!.error).toMatch(/^blocked_address: 127\.0\.0\.1 \(loopback\)/);
    expect(receiver.requests('/closed')).toEqual([]);
  });

  it('refuses localhost for a live endpoint however it is spelled', async () => {
    for (const url of ['https://LOCALHOST./hooks', 'https://localhost/hooks', 'https://a.localhost./hooks', 'https://127.0.0.1/hooks', 'https://[::1]/hooks']) {
      expectProblem(await api('POST', '/v1/webhook_endpoints', { token: liveKey, body: { url } }), 'invalid_request', url);
    }
  });
});
