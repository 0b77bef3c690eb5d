import { createHash } from 'node:crypto';
import type { Clock } from '../shared/kernel/clock';
import type { ThrottleSettings } from '../shared/http/gateways';

/**
 * The embedded gateway's throttle: API Gateway's token bucket (a bucket of `burstLimit` tokens,
 * refilled at `rateLimit` per second, one token per request), so an integrator meets 429
 * `rate_limited` with Retry-After on a laptop where the AWS stage would answer it.
 *
 * Which bucket. In AWS the stage's limit applies to each method on its own and is shared by
 * every caller of the method (usage plans would make it per API key, but our credentials are
 * verified in the functions, not API Gateway API keys, so the stage has none). Here one bucket
 * per method AND per credential: a laptop has one integrator, for whom that is exactly the
 * stage's per-method bucket, while the parallel tenants of a test run or a demo do not drain each
 * other's. A request without a credential is counted by its address.
 */

export interface ThrottleDecision {
  admitted: boolean;
  /** Whole seconds until a token is back (at least 1), when refused. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date, in ms. */
  at: number;
}

/** Buckets kept before the full ones (idle long enough to refill) are dropped. */
const SWEEP_AT = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly clock: Clock,
  ) {
    if (!(settings.rateLimit > 0) || !Number.isInteger(settings.burstLimit) || settings.burstLimit < 1) {
      throw new Error(`a throttle needs a rate above 0 and a whole burst of at least 1; got ${settings.rateLimit}/${settings.burstLimit}`);
    }
  }

  /** Takes a token of `key`'s bucket, or says how long until one is back. */
  take(key: string): ThrottleDecision {
    const now = this.clock.now().getTime();
    if (this.buckets.size >= SWEEP_AT) this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.settings.burstLimit, at: now };
    const refilled = Math.min(this.settings.burstLimit, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * this.settings.rateLimit);
    if (refilled >= 1) {
      this.buckets.set(key, { tokens: refilled - 1, at: now });
      return { admitted: true, retryAfterSeconds: 0 };
    }
    this.buckets.set(key, { tokens: refilled, at: now });
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - refilled) / this.settings.rateLimit)) };
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.settings.rateLimit >= this.settings.burstLimit) this.buckets.delete(key);
    }
  }
}

/** A request's bucket: its method (route) and its credential, hashed (no credential is kept in memory), else its address. */
export function bucketKey(operationId: string, authorization: string | undefined, address: string | undefined): string {
  const caller = authorization ? `credential:${createHash('sha256').update(authorization).digest('base64url')}` : `address:${address ?? 'unknown'}`;
  return `${operationId} ${caller}`;
}

/** `100/200` (rate per second / burst) or `off`, as the embedded platform's *_THROTTLE variables take it. */
export function parseThrottle(value: string, variable: string): ThrottleSettings | null {
  if (value.trim().toLowerCase() === 'off') return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+)\s*$/.exec(value);
  const settings = match ? { rateLimit: Number(match[1]), burstLimit: Number(match[2]) } : undefined;
  if (!settings || !(settings.rateLimit > 0) || settings.burstLimit < 1 || settings.burstLimit > 1_000_000) {
    throw new Error(`${variable} must be <requests per second>/<burst> (e.g. 100/200) or off; got ${value}`);
  }
  return settings;
}
