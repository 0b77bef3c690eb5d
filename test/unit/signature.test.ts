import Stripe from 'stripe';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../shared/events/signature';

const stripe = new Stripe('sk_test_unused');

describe('the t=,v1= signature scheme', () => {
  it('is verified by an independent implementation (the stripe package)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 8 }), fc.json(), (secret, body) => {
        const now = Math.floor(Date.now() / 1000);
        const header = signPayload(secret, body, now);
        expect(() => stripe.webhooks.signature!.verifyHeader(body, header, secret, 300)).not.toThrow();
      }),
      { numRuns: 50 },
    );
  });

  it('accepts its own signatures and refuses a changed body, another secret or a stale timestamp', () => {
    const now = 1_800_000_000;
    const header = signPayload('whsec_1', '{"a":1}', now);
    expect(verifySignature(header, '{"a":1}', 'whsec_1', { nowSeconds: now + 10 })).toEqual({ ok: true, timestamp: now });
    expect(verifySignature(header, '{"a":2}', 'whsec_1', { nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature(header, '{"a":1}', 'whsec_2', { nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature(header, '{"a":1}', 'whsec_1', { nowSeconds: now + 301 })).toEqual({ ok: false, reason: 'stale' });
    expect(verifySignature(header, '{"a":1}', 'whsec_1', { nowSeconds: now - 301 })).toEqual({ ok: false, reason: 'stale' });
    expect(verifySignature('v1=abc', '{}', 'whsec_1', { nowSeconds: now })).toEqual({ ok: false, reason: 'malformed' });
    expect(verifySignature(undefined, '{}', 'whsec_1', { nowSeconds: now })).toEqual({ ok: false, reason: 'malformed' });
  });
});
