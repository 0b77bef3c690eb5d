import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, MERCHANT_FAMILIES, familyOf, isEventFilter } from '../../shared/events/names';
import { signPayload } from '../../shared/events/signature';
import { endpointReceives } from '../../shared/wallet/webhooks/matching';
import { verifyWebhook } from '../../shared/wallet/webhooks/verify';

/** Which endpoints an event reaches, and the receiver's signature helper: pure functions, no table. */

const clientA = '0199a1fc-0000-7000-8000-00000000000a';
const clientB = '0199a1fc-0000-7000-8000-00000000000b';

describe('which endpoints receive an event', () => {
  it('gives a tenant endpoint without filters every type, merchants\' events included', () => {
    for (const type of EVENT_TYPES) {
      expect(endpointReceives({ client_id: null, event_filters: null }, { type })).toBe(true);
      expect(endpointReceives({ client_id: null, event_filters: null }, { type, client_id: clientA })).toBe(true);
    }
  });

  it('narrows by exact types and family wildcards', () => {
    const endpoint = { client_id: null, event_filters: ['topup.*', 'transfer.completed'] };
    expect(endpointReceives(endpoint, { type: 'topup.failed' })).toBe(true);
    expect(endpointReceives(endpoint, { type: 'transfer.completed' })).toBe(true);
    expect(endpointReceives(endpoint, { type: 'fee_plan.set' })).toBe(false);
    expect(endpointReceives(endpoint, { type: 'topupx.failed' })).toBe(false);
  });

  it("gives a merchant endpoint only its own client's product, order, inventory and import events, whatever its filters say", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_TYPES),
        fc.option(fc.subarray([...EVENT_TYPES, 'topup.*', 'order.*', 'product.*'], { minLength: 1 }), { nil: null }),
        fc.constantFrom(clientA, clientB, undefined),
        (type, filters, eventClient) => {
          const receives = endpointReceives({ client_id: clientA, event_filters: filters }, { type, ...(eventClient ? { client_id: eventClient } : {}) });
          if (receives) {
            expect(MERCHANT_FAMILIES).toContain(familyOf(type));
            expect(eventClient).toBe(clientA);
          }
          const selected = filters === null || filters.some((f) => f === type || (f.endsWith('.*') && familyOf(type) === f.slice(0, -2)));
          expect(receives).toBe(MERCHANT_FAMILIES.includes(familyOf(type)) && eventClient === clientA && selected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sends webhook_endpoint.disabled to the other endpoints, never to the endpoint it names', () => {
    const notice = { type: 'webhook_endpoint.disabled', data: { webhook_endpoint: { id: 'ep-1' }, reason: 'gone' } };
    expect(endpointReceives({ id: 'ep-1', client_id: null, event_filters: null }, notice)).toBe(false);
    expect(endpointReceives({ id: 'ep-2', client_id: null, event_filters: null }, notice)).toBe(true);
    expect(endpointReceives({ id: 'ep-2', client_id: null, event_filters: ['webhook_endpoint.*'] }, notice)).toBe(true);
    expect(endpointReceives({ id: 'ep-3', client_id: clientA, event_filters: null }, notice)).toBe(false);
  });

  it('accepts known types and known families as filters only', () => {
    expect(['topup.succeeded', 'topup.*', 'import.completed', 'inventory.*'].every(isEventFilter)).toBe(true);
    expect(['topup', '*', 'topup.**', 'nothing.*', 'topup.exploded', ''].some(isEventFilter)).toBe(false);
  });
});

describe('verifyWebhook (receivers)', () => {
  const secret = 'whsec_test';
  const body = '{"id":"e","type":"fee_plan.set"}';
  const at = 1_800_000_000;
  const header = signPayload(secret, body, at);

  it('accepts the raw body within the tolerance in either direction', () => {
    expect(verifyWebhook(body, header, secret, { now: (at + 300) * 1000 })).toEqual({ ok: true, timestamp: at });
    expect(verifyWebhook(Buffer.from(body), header, secret, { now: new Date((at - 300) * 1000) })).toEqual({ ok: true, timestamp: at });
  });

  it('refuses stale and future timestamps, another body, another secret and a missing header', () => {
    expect(verifyWebhook(body, header, secret, { now: (at + 301) * 1000 })).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhook(body, header, secret, { now: (at - 301) * 1000 })).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhook(body, header, secret, { now: (at + 3_600) * 1000, toleranceSeconds: 7_200 })).toEqual({ ok: true, timestamp: at });
    expect(verifyWebhook(`${body} `, header, secret, { now: at * 1000 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook(body, header, 'whsec_other', { now: at * 1000 })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyWebhook(body, undefined, secret, { now: at * 1000 })).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts any matching v1 entry, as during a secret rotation', () => {
    const rotated = `${header},v1=${'0'.repeat(64)}`;
    expect(verifyWebhook(body, rotated, secret, { now: at * 1000 }).ok).toBe(true);
  });
});
