import { describe, expect, it } from 'vitest';
import { bucketKey, parseThrottle, TokenBuckets } from '../../local/throttle';
import { ManualClock } from '../../shared/kernel/clock';

describe('the embedded gateway token buckets', () => {
  it('admit a burst, then one request per 1/rate seconds, as API Gateway does', () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const buckets = new TokenBuckets({ rateLimit: 4, burstLimit: 3 }, clock);
    expect([1, 2, 3].map(() => buckets.take('k').admitted)).toEqual([true, true, true]);
    expect(buckets.take('k')).toEqual({ admitted: false, retryAfterSeconds: 1 });
    clock.advance(250);
    expect(buckets.take('k').admitted).toBe(true);
    expect(buckets.take('k').admitted).toBe(false);
    clock.advance(60_000); // refills to the burst, not beyond
    expect([1, 2, 3, 4].map(() => buckets.take('k').admitted)).toEqual([true, true, true, false]);
    expect(buckets.take('other').admitted).toBe(true);
  });

  it('say how long until a token is back, in whole seconds', () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const buckets = new TokenBuckets({ rateLimit: 0.1, burstLimit: 1 }, clock);
    buckets.take('k');
    expect(buckets.take('k').retryAfterSeconds).toBe(10);
    clock.advance(2_500);
    expect(buckets.take('k').retryAfterSeconds).toBe(8);
  });

  it('key a bucket by method and credential, else by address, keeping no credential', () => {
    expect(bucketKey('listUsers', 'Bearer sk_sandbox_x', '127.0.0.1')).not.toContain('sk_sandbox_x');
    expect(bucketKey('listUsers', 'Bearer a', '127.0.0.1')).not.toBe(bucketKey('listUsers', 'Bearer b', '127.0.0.1'));
    expect(bucketKey('listUsers', 'Bearer a', '127.0.0.1')).not.toBe(bucketKey('getUser', 'Bearer a', '127.0.0.1'));
    expect(bucketKey('health', undefined, '127.0.0.1')).toBe('health address:127.0.0.1');
  });

  it('read <rate>/<burst> or off from the environment, refusing anything else', () => {
    expect(parseThrottle('100/200', 'PUBLIC_THROTTLE')).toEqual({ rateLimit: 100, burstLimit: 200 });
    expect(parseThrottle(' 0.5 / 1 ', 'PUBLIC_THROTTLE')).toEqual({ rateLimit: 0.5, burstLimit: 1 });
    expect(parseThrottle('OFF', 'PUBLIC_THROTTLE')).toBeNull();
    for (const bad of ['100', '0/10', '10/0', '-1/2', 'fast', '10/2.5']) expect(() => parseThrottle(bad, 'PUBLIC_THROTTLE'), bad).toThrow(/PUBLIC_THROTTLE/);
  });
});
