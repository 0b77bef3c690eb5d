import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { signPayload, signPayloadWith, signStandardWebhook, standardWebhooksSecret, verifySignature } from '../../shared/events/signature';

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

describe('the Standard Webhooks signature', () => {
  it('is verified by the reference implementation (the standardwebhooks package) with a secret of ours as it is shown', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`), fc.uuid(), fc.json(), (secret, id, body) => {
        const now = Math.floor(Date.now() / 1000);
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': signStandardWebhook([secret], id, now, body) };
        expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
        expect(standardWebhooksSecret(secret)).toBe(secret);
      }),
      { numRuns: 50 },
    );
  });

  it('keeps a secret issued before (base64url, 43 characters) keyed by its text: its Standard-format secret or its raw bytes verify', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64url')}`), fc.uuid(), fc.json(), (secret, id, body) => {
        const now = Math.floor(Date.now() / 1000);
        const headers = { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': signStandardWebhook([secret], id, now, body) };
        expect(standardWebhooksSecret(secret)).toBe(`whsec_${Buffer.from(secret).toString('base64')}`);
        expect(() => new Webhook(standardWebhooksSecret(secret)).verify(body, headers)).not.toThrow();
        expect(() => new Webhook(secret, { format: 'raw' }).verify(body, headers)).not.toThrow();
      }),
      { numRuns: 50 },
    );
  });

  it('carries one space-separated signature per secret, and either secret verifies', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_800_000_000_000 });
    try {
      const [older, newer] = ['whsec_older', 'whsec_newer'];
      const value = signStandardWebhook([newer, older], 'evt', 1_800_000_000, '{}');
      expect(value.split(' ')).toHaveLength(2);
      for (const secret of [older, newer]) {
        expect(() => new Webhook(standardWebhooksSecret(secret)).verify('{}', { 'webhook-id': 'evt', 'webhook-timestamp': '1800000000', 'webhook-signature': value })).not.toThrow();
      }
      expect(() => new Webhook(standardWebhooksSecret('whsec_third')).verify('{}', { 'webhook-id': 'evt', 'webhook-timestamp': '1800000000', 'webhook-signature': value })).toThrow();
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives X-Wallet-Signature one v1 per secret, which stripe accepts for either', () => {
    const now = Math.floor(Date.now() / 1000);
    const header = signPayloadWith(['whsec_new', 'whsec_old'], '{"a":1}', now);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    for (const secret of ['whsec_new', 'whsec_old']) expect(() => stripe.webhooks.signature!.verifyHeader('{"a":1}', header, secret, 300)).not.toThrow();
    expect(verifySignature(header, '{"a":1}', 'whsec_other', { nowSeconds: now })).toEqual({ ok: false, reason: 'mismatch' });
  });
});
