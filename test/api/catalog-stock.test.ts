import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { clientOf, newVariant, stockMovements } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, expectProblem, sendUntilFinal } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant } from '../support/tenants';

/**
 * Stock under concurrency, held like money: 50 changes at once on one variant serialize; the count
 * ends at the opening stock plus exactly the accepted changes, never goes below zero (or below the
 * reserved units), and the log holds one movement per accepted change whose quantities sum to the
 * difference.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let apiKey: string;
let clientId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  const platformStaff = await staffToken(platform, { role: 'platform' });
  apiKey = await apiKeyFor(platform, await createTenant(api, platformStaff, 'Stock'), [...TENANT_SCOPES]);
  clientId = (await clientOf(base, apiKey)).id;
});

afterAll(() => platform?.stop());

describe('50 concurrent stock changes on one variant', () => {
  it('all commit, and the count is the opening stock plus their sum', async () => {
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 30 }, { title: 'Mug', amount: 900, published: false });
    const deltas = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 2 : -1));
    // As a client would: an answer marked retryable (503 when the changes kept colliding on a busy machine) is sent again with the same key.
    const results = await Promise.all(deltas.map((delta, i) => sendUntilFinal((key) => api('POST', `${variant.path}/stock`, { token: apiKey, key, body: { delta, reason: `change ${i}` } }))));
    for (const result of results) expect(result.status, result.text).toBe(200);

    const read = await api('GET', variant.path.replace(/\/variants\/.*$/, ''), { token: apiKey });
    const inventory = read.body.variants[0].inventory;
    expect(inventory).toMatchObject({ on_hand: 30 + 25 * 2 - 25, reserved: 0, available: 55 });

    const log = (await stockMovements(api, apiKey, clientId, variant.id)).filter((m) => m.kind === 'adjustment');
    expect(log).toHaveLength(50);
    expect(log.reduce((sum, m) => sum + m.quantity, 0)).toBe(25);
    // Each change saw the count the one before it left: replaying the log in commit order (newest
    // first, so reversed) walks from the opening 30 to 55 without a gap.
    let count = 30;
    for (const movement of [...log].reverse()) {
      expect(movement.on_hand_after - movement.quantity, 'the count this change started from').toBe(count);
      count = movement.on_hand_after;
    }
    expect(count).toBe(55);
  });

  it('never go below zero: of 50 removals of one unit from 20, exactly 20 commit', async () => {
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 20 }, { title: 'Mug', amount: 900, published: false });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api('POST', `${variant.path}/stock`, { token: apiKey, body: { delta: -1, reason: `sale ${i}` } })));
    const accepted = results.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(20);
    for (const refused of results.filter((r) => r.status !== 200)) expectProblem(refused, 'invalid_request');
    // Every accepted change left a distinct count, 19 down to 0: none was lost or applied twice.
    expect(accepted.map((r) => r.body.movement.on_hand_after).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));

    const read = await api('GET', variant.path.replace(/\/variants\/.*$/, ''), { token: apiKey });
    expect(read.body.variants[0].inventory).toMatchObject({ on_hand: 0, available: 0, in_stock: false });
    const log = (await stockMovements(api, apiKey, clientId, variant.id)).filter((m) => m.kind === 'adjustment');
    expect(log).toHaveLength(20);
  });

  it('with expected_on_hand, exactly one of 10 compare-and-swaps from the same count wins', async () => {
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 5 }, { title: 'Mug', amount: 900, published: false });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => api('POST', `${variant.path}/stock`, { token: apiKey, body: { set_to: 100 + i, reason: 'count', expected_on_hand: 5 } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 200)) expectProblem(refused, 'conflict');
  });
});
