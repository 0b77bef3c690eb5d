import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import { transact } from '../../shared/aws/store';
import type { Principal } from '../../shared/http/principal';
import { systemClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { catalogKeys } from '../../shared/wallet/catalog/keys';
import type { WalletDeps } from '../../shared/wallet/deps';
import { payOrder } from '../../shared/wallet/orders/pay';
import { clientOf, inventoryOf, newVariant, stockMovements } from '../support/catalog';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { cancelPlacedOrder, payForOrder, placeOrder, type OrderLine } from '../support/payments';
import { createTenant, fundedUsers, type TenantOfTest } from '../support/tenants';
import { walletLedgerClient } from '../support/wallet';

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
let tenantOfTest: TenantOfTest;
const shopper = fundedUsers(() => tenantOfTest, { prefix: 'shopper', scopes: ['payments:read', 'payments:write'] });

beforeAll(async () => {
  platform = await startTestPlatform();
  base = platform.urls.public;
  const staff = await staffToken(platform, { role: 'platform' });
  tenantId = await createTenant(api, staff, 'Holds');
  apiKey = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  tenantOfTest = { platform, api, tenantId, apiKey };
  clientId = (await clientOf(base, apiKey)).id;
});

afterAll(() => platform?.stop());

interface VariantRef {
  id: string;
  offeringId: string;
}

/** An order placed (201): its id. */
const orderPlaced = async (token: string, lines: OrderLine[]) => {
  const opened = await placeOrder(api, token, clientId, lines);
  expect(opened.status, opened.text).toBe(201);
  return opened.body.id as string;
};
/** The order paid with the tenant's key (200): the order. */
const orderPaid = async (orderId: string) => {
  const answer = await payForOrder(api, apiKey, orderId);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
};
/** The order cancelled with the tenant's key (200). */
const orderCancelled = async (orderId: string) => expect((await cancelPlacedOrder(api, apiKey, orderId)).status).toBe(200);
const track = async (variant: VariantRef, on: boolean) => {
  const patched = await api('PATCH', `/v1/clients/${clientId}/offerings/${variant.offeringId}/variants/${variant.id}`, { token: apiKey, body: { inventory: { track_inventory: on } } });
  expect(patched.status, patched.text).toBe(200);
};

/**
 * The counts as the stock log replays them (oldest first: a sale takes its units off on_hand and
 * reserved alike), checked against each movement's own counts and the variant's; and the units
 * each order still holds (its reservation less its release or sale).
 */
async function replayed(variant: VariantRef): Promise<{ onHand: number; reserved: number; held: Map<string, number> }> {
  const log = (await stockMovements(api, apiKey, clientId, variant.id)).reverse();
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
  expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: onHand, reserved });
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
    const variant = await newVariant(api, apiKey, clientId, { on_hand: 10, allow_backorder: false }, { amount: 100 });
    const orders: string[] = [];
    // A holds 5 (tracked); B and C are opened while the variant is untracked and hold nothing.
    orders.push(await orderPlaced(buyer.token, [{ variant_id: variant.id, quantity: 5 }]));
    await track(variant, false);
    orders.push(await orderPlaced(buyer.token, [{ variant_id: variant.id, quantity: 5 }]), await orderPlaced(buyer.token, [{ variant_id: variant.id, quantity: 4 }]));
    await track(variant, true);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 10, reserved: 5 });
    // D holds the other 5 once tracked again.
    orders.push(await orderPlaced(buyer.token, [{ variant_id: variant.id, quantity: 5 }]));
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 10, reserved: 10, available: 0 });
    await expectHeldByOpenOrders(variant, orders);

    // A canceled while untracked still gives back its 5.
    await track(variant, false);
    await orderCancelled(orders[0]!);
    await track(variant, true);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 10, reserved: 5 });
    await expectHeldByOpenOrders(variant, orders);

    // B and C held nothing and sell nothing; D sells its 5.
    for (const id of orders.slice(1)) await orderPaid(id);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 5, reserved: 0 });
    await expectHeldByOpenOrders(variant, orders);

    // E holds 2; untracking the variant does not move it, and its sale takes exactly those 2.
    orders.push(await orderPlaced(buyer.token, [{ variant_id: variant.id, quantity: 2 }]));
    await track(variant, false);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 5, reserved: 2 });
    await expectHeldByOpenOrders(variant, orders);
    await orderPaid(orders[4]!);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 3, reserved: 0 });
    await expectHeldByOpenOrders(variant, orders);

    // A refund with restock returns what E's sale took, untracked or not.
    const paid = (await api('GET', `/v1/orders/${orders[4]}`, { token: apiKey })).body;
    const refund = await api('POST', '/v1/refunds', { token: apiKey, key: uuidv7(), body: { payment_id: paid.payment_id, restock: true } });
    expect(refund.status, refund.text).toBe(201);
    expect(await inventoryOf(api, apiKey, clientId, variant)).toMatchObject({ on_hand: 5, reserved: 0 });
    await replayed(variant);
  });
});

describe('an order\'s payment', () => {
  it('is paid, selling nothing for a variant deleted after the ledger posted, instead of never finishing', async () => {
    const documents = localDocumentClient(platform.dynamodbEndpoint);
    const ledger = walletLedgerClient(platform);
    const runtime: WalletDeps = { client: documents, table: platform.tables.wallet.name, clock: systemClock, ids: uuidv7, signer: () => Promise.reject(new Error('no signer here')), ledger: () => ledger };
    const buyer = await shopper(10_000);
    const [kept, doomed] = [await newVariant(api, apiKey, clientId, { on_hand: 4 }, { amount: 100 }), await newVariant(api, apiKey, clientId, { on_hand: 4 }, { amount: 100 })];
    const id = await orderPlaced(buyer.token, [{ variant_id: kept.id, quantity: 1 }, { variant_id: doomed.id, quantity: 2 }]);
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
    expect(await inventoryOf(api, apiKey, clientId, kept)).toMatchObject({ on_hand: 3, reserved: 0 });
    await replayed(kept);
  });
});
