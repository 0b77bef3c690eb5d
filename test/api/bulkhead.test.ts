import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHandler, type LambdaHandler } from '../../local/gateway';
import type { Platform } from '../../local/platform';
import { call, startTestPlatform } from '../support/platform';

/** The embedded gateway's bulkhead: requests in flight per route beyond its cap answer 503 bulkhead_full. */

let platform: Platform;
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
let entered = 0;

beforeAll(async () => {
  platform = await startTestPlatform({
    workers: [],
    maxInFlightPerRoute: 2,
    // The health probe waits until the test lets it go, so requests pile up on its route.
    handlerFor: async (entry) => {
      const real = await loadHandler(entry);
      if (entry !== 'platform/healthz') return real;
      const slow: LambdaHandler = async (event, context) => {
        entered += 1;
        await held;
        return real(event, context);
      };
      return slow;
    },
  });
});
afterAll(() => platform?.stop());

describe('bulkheads', () => {
  it('answers the request over the cap with 503 bulkhead_full and Retry-After, and admits again once one finishes', async () => {
    const first = [call(platform.urls.public, 'GET', '/healthz'), call(platform.urls.public, 'GET', '/healthz')];
    while (entered < 2) await new Promise((r) => setTimeout(r, 10));

    const over = await call(platform.urls.public, 'GET', '/healthz');
    expect(over.status).toBe(503);
    expect(over.headers.get('content-type')).toBe('application/problem+json');
    expect(over.headers.get('retry-after')).toBe('1');
    expect(over.body).toMatchObject({ code: 'bulkhead_full', status: 503, retryable: true });

    // Another route has its own lane.
    expect((await call(platform.urls.public, 'GET', '/openapi.json')).status).toBe(200);

    release();
    expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
    expect((await call(platform.urls.public, 'GET', '/healthz')).status).toBe(200);
  });
});
