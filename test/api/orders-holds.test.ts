import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { transact } from '../../shared/aws/store';
import type { Principal } from '../../shared/http/principal';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { LedgerClient } from '../../shared/ledger-client/client';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { catalogKeys } from '../../shared/wallet/catalog/keys';
import type { WalletDeps } from '../../shared/wallet/deps';
import { payOrder } from '../../shared/wallet/orders/pay';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffToken, userTokenFor } from '../support/credentials';
import { apiClient } from '../support/http';
import { fundUser } from '../support/money';
import { startTestPlatform } from '../support/platform';

/**
 * Stock held like money, over HTTP: an order holds the units its reservation took (tracked
 * variants only), and its release or sale moves exactly those, whatever track_inventory says by
 * then. The counts always replay from the stock log, and a variant's reserved is what its open
 * orders hold.
 */

let platform: Platform;
let base: string;
const api = apiClient(() => base);
let tenantId: string;
let apiKey: string;
let clientId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  const staff = await staffToken(platform, { role: 'platform' });
  tenantId = (await api('POST', '/v1/tenants', { token: staff, key: uuidv7(), body: { name: 'Holds', currency: 'USD' } })).body.id;
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  clientId = (await clientOf(base, apiKey)).id;
}, 120_000);

afterAll(() => platform?.stop());

async function shopper(funds: number) {
  const externalId = `shopper-${uuidv7()}`;
  const user = await api('POST', '/v1/users', { token: apiKey, body: { external_id: externalId } });
  expect(user.status, user.text).toBe(201);
  if (funds > 0) await fundUser(platform, tenantId, user.body.id, funds);
  return { id: user.body.id as string, token: await userTokenFor(platform, apiKey, externalId, ['payments:read', 'payments:write']) };
}

interface VariantRef {
  id: string;
  offeringId: string;
}

async function variantWith(inventory: Record<string, unknown>): Promise<VariantRef> {
  const offering = await api('POST', `/v1/clients/${clientId}/offerings`, {
    token: apiKey,
    body: { title: 'Tee', status: 'published', variants: [{ sku: `T-${uuidv7().slice(-10)}`, amount: 100, inventory }] },
  });
  expect(offering.status, offering.text).toBe(201);
  return { id: offering.body.variants[0].id, offeringId: offering.body.id };
}

const order = async (token: string, lines: { variant_id: string; quantity: number }[]) => {
  const opened = await api('POST', '/v1/orders', { token, key: uuidv7(), body: { client_id: clientId, lines } });
  expect(opened.status, opened.text).toBe(201);
  return opened.body.id as string;
};
const pay = async (orderId: string) => {
  const paid = await api('POST', `/v1/orders/${orderId}/pay`, { token: apiKey, key: uuidv7() });
  expect(paid.status, paid.text).toBe(200);
  return paid.body;
};
const cancel = async (orderId: string) => expect((await api('POST', `/v1/orders/${orderId}/cancel`, { token: apiKey, key: uuidv7() })).status).toBe(200);
const track = async (variant: VariantRef, on: boolean) => {
  const patched = await api('PATCH', `/v1/clients/${clientId}/offerings/${variant.offeringId}/variants/${variant.id}`, { token: apiKey, body: { inventory: { track_inventory: on } } });
  expect(patched.status, patched.text).toBe(200);
};
const inventoryOf = async (variant: VariantRef) =>
  (await api('GET', `/v1/clients/${clientId}/offerings/${variant.offeringId}`, { token: apiKey })).body.variants.find((v: { id: string }) => v.id === variant.id).inventory;

interface Movement {
  kind: string;
  quantity: number;
  on_hand_after: number;
  reserved_after: number;
  order_id: string | null;
}

/**
 * The counts as the stock log replays them (oldest first: a sale takes its units off on_hand and
 * reserved alike), checked against each movement's own counts and the variant's; and the units
 * each order still holds (its reservation less its release or sale).
 */
async function replayed(variant: VariantRef): Promise<{ onHand: number; reserved: number; held: Map<string, number> }> {
  const log = ((await api('GET', `/v1/clients/${clientId}/stock_movements?variant_id=${variant.id}&limit=100`, { token: apiKey })).body.data as Movement[]).reverse();
  let onHand = 0;
  let reserved = 0;
  const held = new Map<string, number>();
  for (const movement of log) {
    if (movement.kind === 'reservation' || movement.kind === 'release') reserved += movement.quantity;
    else if (movement.kind === 'sale') {
      onHand += movement.quantity;
      reserved += movement.quantity;
    } else onHand += movement.quantity;
    if (movement.order_id && movement.kind !== 'restock') held.set(movement.order_id, (held.get(movement.order_id) ?? 0) + movement.quantity);
    expect({ onHand, reserved }).toEqual({ onHand: movement.on_hand_after, reserved: movement.reserved_after });
  }
  expect(await inventoryOf(variant)).toMatchObject({ on_hand: onHand, reserved });
  return { onHand, reserved, held };
}

/** The variant's reserved is exactly the units its open orders hold, and every ended order holds none. */
async function expectHeldByOpenOrders(variant: VariantRef, orders: string[]) {
  const { reserved, held } = await replayed(variant);
  let open = 0;
  for (const id of orders) {
    const status = (await api('GET', `/v1/orders/${id}`, { token: apiKey })).body.status as string;
    if (status === 'open') open += held.get(id) ?? 0;
    else expect(held.get(id) ?? 0, `order ${id} (${status}) still holds units`).toBe(0);
  }
  expect(reserved).toBe(open);
}

describe('toggling track_inventory while orders are open', () => {
  it('moves no order\'s hold: each order releases or sells exactly the units it reserved, and nothing sells below zero', async () => {
    const buyer = await shopper(10_000);
    const variant = await variantWith({ on_hand: 10, allow_backorder: false });
    const orders: string[] = [];
    // A holds 5 (tracked); B and C are opened while the variant is untracked and hold nothing.
    orders.push(await order(buyer.token, [{ variant_id: variant.id, quantity: 5 }]));
    await track(variant, false);
    orders.push(await order(buyer.token, [{ variant_id: variant.id, quantity: 5 }]), await order(buyer.token, [{ variant_id: variant.id, quantity: 4 }]));
    await track(variant, true);
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 10, reserved: 5 });
    // D holds the other 5 once tracked again.
    orders.push(await order(buyer.token, [{ variant_id: variant.id, quantity: 5 }]));
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 10, reserved: 10, available: 0 });
    await expectHeldByOpenOrders(variant, orders);

    // A canceled while untracked still gives back its 5.
    await track(variant, false);
    await cancel(orders[0]!);
    await track(variant, true);
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 10, reserved: 5 });
    await expectHeldByOpenOrders(variant, orders);

    // B and C held nothing and sell nothing; D sells its 5.
    for (const id of orders.slice(1)) await pay(id);
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 5, reserved: 0 });
    await expectHeldByOpenOrders(variant, orders);

    // E holds 2; untracking the variant does not move it, and its sale takes exactly those 2.
    orders.push(await order(buyer.token, [{ variant_id: variant.id, quantity: 2 }]));
    await track(variant, false);
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 5, reserved: 2 });
    await expectHeldByOpenOrders(variant, orders);
    await pay(orders[4]!);
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 3, reserved: 0 });
    await expectHeldByOpenOrders(variant, orders);

    // A refund with restock returns what E's sale took, untracked or not.
    const paid = (await api('GET', `/v1/orders/${orders[4]}`, { token: apiKey })).body;
    const refund = await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paid.payment_id, restock: true } });
    expect(refund.status, refund.text).toBe(201);
    expect(await inventoryOf(variant)).toMatchObject({ on_hand: 5, reserved: 0 });
    await replayed(variant);
  });
});

describe('an order\'s payment', () => {
  it('is paid, selling nothing for a variant deleted after the ledger posted, instead of never finishing', async () => {
    const documents = localDocumentClient(platform.dynamodbEndpoint);
    const ledger = new LedgerClient({ baseUrl: platform.urls.ledger, tokenUrl: process.env.LEDGER_TOKEN_URL!, clientId: process.env.LEDGER_CLIENT_ID!, clientSecret: process.env.LEDGER_CLIENT_SECRET!, clock: systemClock });
    const runtime: WalletDeps = { client: documents, table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7, signer: () => Promise.reject(new Error('no signer here')), ledger: () => ledger };
    const buyer = await shopper(10_000);
    const [kept, doomed] = [await variantWith({ on_hand: 4 }), await variantWith({ on_hand: 4 })];
    const id = await order(buyer.token, [{ variant_id: kept.id, quantity: 1 }, { variant_id: doomed.id, quantity: 2 }]);
    // The variant's item goes between the ledger's posting and the wallet's commit.
    const vanish = async () => {
      await transact(runtime, [{ Delete: { TableName: runtime.table, Key: catalogKeys.variant(doomed.offeringId, doomed.id) } }]);
    };
    const principal: Principal = { kind: 'api_key', id: `key-${uuidv7()}`, tenantId, scopes: new Set(TENANT_SCOPES) };
    const key = uuidv7();
    const first = await payOrder(runtime, principal, { tenantId }, id, { idempotencyKey: key, requestId: uuidv7(), faults: { afterLedger: vanish } }).catch((error: unknown) => ({ status: 0, body: String(error) }));
    expect(first.status, first.body).toBe(200);

    const retried = await api('POST', `/v1/orders/${id}/pay`, { token: apiKey, key });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.status).toBe('paid');
    expect((await api('GET', `/v1/orders/${id}`, { token: buyer.token })).body.status).toBe('paid');
    expect((await api('GET', `/v1/payments/${retried.body.payment_id}`, { token: apiKey })).body).toMatchObject({ status: 'captured', amount: 300 });
    expect(await inventoryOf(kept)).toMatchObject({ on_hand: 3, reserved: 0 });
    await replayed(kept);
  });
});
