import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, delayBefore, retryAfterSeconds } from '../../shared/wallet/webhooks/attempts';
import { RETRY_DELAYS_SECONDS } from '../../shared/wallet/webhooks/deliveries';
import { latencyBucket } from '../../shared/wallet/webhooks/health';

/** How a receiver's answer sets the next attempt, and the latency histogram's buckets: pure functions. */

const now = new Date('2026-01-01T00:00:00.000Z');

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:10:00 GMT', now)).toBe(600);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    for (const junk of ['-5', '1.5', 'soon', '', '1e3', null]) expect(retryAfterSeconds(junk, now), String(junk)).toBeNull();
  });

  it('delays the next attempt by the longer of the schedule and the answer, capped at 4 h, for 429 and 503 only', () => {
    const schedule = RETRY_DELAYS_SECONDS[1]!;
    expect(delayBefore(2, { responseCode: 503, retryAfter: '120' }, now)).toBe(120);
    expect(delayBefore(2, { responseCode: 429, retryAfter: '5' }, now)).toBe(schedule);
    expect(delayBefore(2, { responseCode: 503, retryAfter: '999999' }, now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(MAX_RETRY_AFTER_SECONDS).toBe(14_400);
    expect(delayBefore(2, { responseCode: 500, retryAfter: '120' }, now)).toBe(schedule);
    expect(delayBefore(2, { responseCode: null, retryAfter: null }, now)).toBe(schedule);
    expect(delayBefore(2, { responseCode: 503, retryAfter: 'garbage' }, now)).toBe(schedule);
  });
});

describe('latency buckets', () => {
  it('puts each duration in a bucket whose upper bound is at most 25 % above it', () => {
    for (const ms of [2, 3, 10, 57, 250, 999, 10_000]) {
      const upper = 1.25 ** latencyBucket(ms);
      expect(upper, String(ms)).toBeGreaterThanOrEqual(ms);
      expect(upper, String(ms)).toBeLessThanOrEqual(ms * 1.25 + 1e-9);
    }
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(1)).toBe(0);
  });
});
