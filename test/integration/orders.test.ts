import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../shared/http/outcome';
import { getItem } from '../../shared/aws/store';
import { AppError } from '../../shared/kernel/errors';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { changeClient, createClient, type ClientRecord, readClient } from '../../shared/wallet/catalog/clients';
import { catalogKeys } from '../../shared/wallet/catalog/keys';
import { createOffering } from '../../shared/wallet/catalog/offerings';
import { inventoryOf, type VariantRecord } from '../../shared/wallet/catalog/records';
import { changeStock, listMovements } from '../../shared/wallet/catalog/stock';
import type { WalletDeps } from '../../shared/wallet/deps';
import { cancelOrder, expireOrders } from '../../shared/wallet/orders/cancel';
import { createOrder } from '../../shared/wallet/orders/create';
import { payOrder } from '../../shared/wallet/orders/pay';
import { getOrder } from '../../shared/wallet/orders/records';
import { createMerchant } from '../../shared/wallet/merchants/merchants';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';
import { crashAfterLedger, tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';
import { apiKeyPrincipals, requestIds } from '../support/services';

/**
 * Orders through their services on DynamoDB Local and the real ledger: the pay saga survives a
 * crash between the ledger and the wallet (finished by the retry or the sweeper, the stock sold
 * once), and random sequences of create, pay, cancel, expire and stock changes keep the stock
 * invariants, with the stock log replaying to the same counts.
 */

let f: TenancyFixture;
let clock: ManualClock;
let runtime: WalletDeps;

beforeAll(async () => {
  f = await tenancyFixture();
  clock = new ManualClock(new Date());
  runtime = f.walletRuntime(clock);
});
afterAll(() => f?.stop());

const crash = crashAfterLedger;
const operator = apiKeyPrincipals(['payments:write', 'clients:manage', 'merchants:write']);
const body = <T>(outcome: Outcome) => JSON.parse(outcome.body) as T;

async function shopWith(onHand: number, funds = 100_000) {
  const tenant = await f.tenant();
  const payer = await f.user(tenant.id);
  if (funds > 0) await f.fund(tenant, payer.cash_account_id, funds);
  const actor = operator(tenant.id);
  const merchant = await createMerchant(runtime, tenant.id, { name: 'Shop' });
  const created = await createClient(runtime, actor, tenant.id, { merchant_id: merchant.id, org_alias: `shop-${uuidv7().slice(-10)}`, display_name: 'Shop', category: 'books' }, uuidv7());
  await changeClient(runtime, actor, { tenantId: tenant.id }, created.id, 'approve', uuidv7());
  const client = await readClient(runtime, tenant.id, created.id);
  const offering = await createOffering(runtime, actor, client, { kind: 'item', title: 'Mug', status: 'published', variants: [{ sku: `MUG-${uuidv7().slice(-8)}`, amount: 500, inventory: { track_inventory: true, on_hand: onHand, low_stock_threshold: 0, allow_backorder: false } }] });
  return { tenant, payer, actor, client, offeringId: offering.id, variantId: offering.variants[0]!.id };
}

/** A variant's counts, read consistently (a retired or archived one too). */
async function variantState(_client: ClientRecord, offeringId: string, variantId: string) {
  return inventoryOf((await getItem(runtime, catalogKeys.variant(offeringId, variantId))) as unknown as VariantRecord);
}

async function allMovements(client: ClientRecord, variantId: string) {
  const all = [];
  let cursor: string | undefined;
  do {
    const page = await listMovements(runtime, client, { variant_id: variantId, cursor, limit: 100 });
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all.reverse();
}

describe.each(['retry', 'sweep'] as const)('paying, with a crash between the ledger and the wallet, finished by %s', (how) => {
  it('moves the money once and sells the stock once', async () => {
    const w = await shopWith(5);
    const opened = body<{ id: string }>(await createOrder(runtime, w.actor, w.tenant.id, { client_id: w.client.id, user_id: w.payer.id, lines: [{ variant_id: w.variantId, quantity: 2 }] }, requestIds()));
    const key = requestIds();
    await expect(payOrder(runtime, w.actor, { tenantId: w.tenant.id }, opened.id, { ...key, faults: crash })).rejects.toThrow('crashed after the ledger');
    // The money moved; the order is held by the pay (not cancelable), its stock still reserved.
    expect(await f.transactions(w.tenant, 'payment')).toHaveLength(1);
    expect((await getOrder(runtime, { tenantId: w.tenant.id }, opened.id)).status).toBe('open');
    await expect(cancelOrder(runtime, w.actor, { tenantId: w.tenant.id }, opened.id, requestIds()).then((o) => o.status)).resolves.toBe(409);
    expect(await variantState(w.client, w.offeringId, w.variantId)).toMatchObject({ on_hand: 5, reserved: 2 });

    let outcome: Outcome;
    if (how === 'retry') outcome = await payOrder(runtime, w.actor, { tenantId: w.tenant.id }, opened.id, key);
    else {
      clock.advance(SWEEP_AFTER_MS + 1_000);
      expect(await sweepOperations(runtime)).toBeGreaterThanOrEqual(1);
      outcome = await payOrder(runtime, w.actor, { tenantId: w.tenant.id }, opened.id, key);
      expect(outcome.replayed).toBe(true);
    }
    expect(outcome.status).toBe(200);
    expect(body<{ status: string }>(outcome).status).toBe('paid');
    expect(await f.transactions(w.tenant, 'payment')).toHaveLength(1);
    expect((await f.balance(w.tenant, w.payer.cash_account_id)).posted).toBe(100_000 - 1_000);
    expect(await variantState(w.client, w.offeringId, w.variantId)).toMatchObject({ on_hand: 3, reserved: 0 });
    expect((await allMovements(w.client, w.variantId)).filter((m) => m.kind === 'sale')).toHaveLength(1);
    expect((await storedEvents(f.deps, w.tenant.id, 'order.paid')).filter((e) => e.data.order.id === opened.id)).toHaveLength(1);
  });
});

type Op =
  | { kind: 'create'; quantity: number }
  | { kind: 'pay'; pick: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'expire' }
  | { kind: 'stock'; delta: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), quantity: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('pay' as const), pick: fc.nat(10) }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat(10) }),
  fc.record({ kind: fc.constant('expire' as const) }),
  fc.record({ kind: fc.constant('stock' as const), delta: fc.integer({ min: -3, max: 5 }).filter((d) => d !== 0) }),
);

it('keeps the stock invariants through random sequences, and the stock log replays to the counts', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 12 }), async (ops) => {
      const w = await shopWith(6, 20_000);
      const orders: { id: string; quantity: number; status: string }[] = [];
      const scope = { tenantId: w.tenant.id };
      for (const o of ops) {
        const target = o.kind === 'pay' || o.kind === 'cancel' ? orders[o.pick % Math.max(1, orders.length)] : undefined;
        if (o.kind === 'create') {
          const outcome = await createOrder(runtime, w.actor, w.tenant.id, { client_id: w.client.id, user_id: w.payer.id, lines: [{ variant_id: w.variantId, quantity: o.quantity }] }, requestIds());
          if (outcome.status === 201) orders.push({ id: body<{ id: string }>(outcome).id, quantity: o.quantity, status: 'open' });
          else expect(body<{ code: string }>(outcome).code).toBe('out_of_stock');
        } else if (o.kind === 'pay' && target) {
          const outcome = await payOrder(runtime, w.actor, scope, target.id, requestIds());
          if (outcome.status === 200) target.status = 'paid';
          else expect(target.status === 'open' ? [409, 422] : [409]).toContain(outcome.status);
        } else if (o.kind === 'cancel' && target) {
          const outcome = await cancelOrder(runtime, w.actor, scope, target.id, requestIds());
          if (outcome.status === 200) target.status = 'canceled';
          else expect(outcome.status).toBe(409);
        } else if (o.kind === 'expire') {
          clock.advance(901_000);
          await expireOrders(runtime);
          for (const held of orders) if (held.status === 'open') held.status = 'expired';
        } else if (o.kind === 'stock') {
          await changeStock(runtime, w.actor, w.client, w.offeringId, w.variantId, { delta: o.delta, reason: 'count' }).catch((e: unknown) => {
            if (!(e instanceof AppError) || e.code !== 'invalid_request') throw e;
          });
        }
        for (const held of orders) expect((await getOrder(runtime, scope, held.id)).status, held.id).toBe(held.status);
        const counts = await variantState(w.client, w.offeringId, w.variantId);
        const openDemand = orders.filter((held) => held.status === 'open').reduce((sum, held) => sum + held.quantity, 0);
        expect(counts.reserved).toBe(openDemand);
        expect(counts.on_hand).toBeGreaterThanOrEqual(0);
        expect(counts.reserved).toBeLessThanOrEqual(counts.on_hand);
      }
      // Replaying the log from nothing gives the counts, and every movement's counts follow from the one before.
      let onHand = 0;
      let reserved = 0;
      for (const movement of await allMovements(w.client, w.variantId)) {
        if (movement.kind === 'reservation' || movement.kind === 'release') reserved += movement.quantity;
        else if (movement.kind === 'sale') {
          onHand += movement.quantity;
          reserved += movement.quantity;
        } else onHand += movement.quantity;
        expect({ onHand, reserved }).toEqual({ onHand: movement.on_hand_after, reserved: movement.reserved_after });
      }
      const counts = await variantState(w.client, w.offeringId, w.variantId);
      expect({ onHand, reserved }).toEqual({ onHand: counts.on_hand, reserved: counts.reserved });
    }),
    { numRuns: 12 },
  );
}, 180_000);
