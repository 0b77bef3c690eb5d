import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * The embedded gateway throttles as the AWS stage does (429 rate_limited with Retry-After), one
 * token bucket per method and credential, so an integrator rehearses the refusal locally. A tiny
 * bucket and a clock the test moves: nothing here depends on how fast the machine is.
 */

const clock = new ManualClock(new Date());
let platform: Platform;
const api = apiClient(() => platform.urls.public);
const consoleApi = apiClient(() => platform.urls.console);
const ledger = apiClient(() => platform.urls.ledger);
let keyA: string;
let keyB: string;
let partnerAdmin: string;

/** Every bucket full again: longer than any refill here. */
const refillAll = () => clock.advance(60_000);

beforeAll(async () => {
  platform = await startTestPlatform({
    clock,
    // Half a request per second: an empty bucket is back in 2 s, refilled by moving the clock.
    throttle: { public: { rateLimit: 0.5, burstLimit: 2 }, console: { rateLimit: 0.5, burstLimit: 1 } },
  });
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const tenantId = await createTenant(api, platformStaff, 'Throttled');
  [keyA, keyB] = [await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]), await apiKeyFor(platform, tenantId, [...TENANT_SCOPES])];
  refillAll(); // the logins share the address's bucket of the login route
  partnerAdmin = await staffToken(platform, { role: 'partner_admin', tenantId });
});

afterAll(() => platform?.stop());

describe('the embedded gateway throttle', () => {
  it("answers 429 rate_limited with Retry-After once a credential's bucket for a method is empty, and refills at the rate", async () => {
    refillAll();
    expect((await api('GET', '/v1/users', { token: keyA })).status).toBe(200);
    expect((await api('GET', '/v1/users', { token: keyA })).status).toBe(200);
    const limited = await api('GET', '/v1/users', { token: keyA });
    expectProblem(limited, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.body).toMatchObject({ detail: 'Too many requests; retry later.', retryable: true });

    // Another credential, or another method, has a bucket of its own.
    expect((await api('GET', '/v1/users', { token: keyB })).status).toBe(200);
    expect((await api('GET', '/v1/ledger/summary', { token: keyA })).status).toBe(200);

    clock.advance(1_000); // half a token back: still refused, and sooner
    const sooner = await api('GET', '/v1/users', { token: keyA });
    expectProblem(sooner, 'rate_limited');
    expect(sooner.headers.get('retry-after')).toBe('1');
    clock.advance(1_000); // one token back: one request
    expect((await api('GET', '/v1/users', { token: keyA })).status).toBe(200);
    expectProblem(await api('GET', '/v1/users', { token: keyA }), 'rate_limited');
  });

  it('counts requests without a credential by their address', async () => {
    refillAll();
    expect((await api('GET', '/healthz')).status).toBe(200);
    expect((await api('GET', '/healthz')).status).toBe(200);
    expectProblem(await api('GET', '/healthz'), 'rate_limited');
  });

  it('throttles the console API by its own numbers and never the ledger API (spec part 8)', async () => {
    refillAll();
    expect((await consoleApi('GET', '/v1/support_access_grants', { token: partnerAdmin })).status).toBe(200);
    expectProblem(await consoleApi('GET', '/v1/support_access_grants', { token: partnerAdmin }), 'rate_limited');
    for (let i = 0; i < 10; i += 1) expect((await ledger('GET', '/healthz')).status).toBe(200);
  });
});
