import type { TransactItem } from '../../aws/dynamodb';
import { getItems } from '../../aws/store';
import { AppError } from '../../kernel/errors';
import type { Actor, StoreDeps } from '../deps';
import { catalogKeys } from '../catalog/keys';
import { movementItem, variantItem, type VariantRecord } from '../catalog/records';
import { versionedPut } from '../../aws/fresh-reads';
import type { OrderLine } from './records';

/**
 * An order's stock steps, held like a ledger pending: `reservation` at creation (reserved goes up
 * by the summed demand of the order's lines on each variant, all variants or none), then exactly
 * one of `sale` (reserved and on_hand go down), `release` (cancel or expiry: reserved goes down),
 * and after a refund, `restock` (on_hand goes up). Each step reads the variants fresh and writes
 * them conditioned on the versions read, with one movement per variant, in the caller's
 * transaction. Untracked variants hold nothing and log nothing.
 */

export type StockStep = 'reservation' | 'release' | 'sale' | 'restock';

/** The summed demand of the lines on each variant. */
export function demandOf(lines: readonly Pick<OrderLine, 'variant_id' | 'offering_id' | 'quantity'>[]): Map<string, { offeringId: string; quantity: number }> {
  const demand = new Map<string, { offeringId: string; quantity: number }>();
  for (const line of lines) {
    const seen = demand.get(line.variant_id);
    demand.set(line.variant_id, { offeringId: line.offering_id, quantity: (seen?.quantity ?? 0) + line.quantity });
  }
  return demand;
}

export interface StepWrites {
  items: TransactItem[];
  /** Variants a sale brought to or under their low-stock threshold (on hand), this time. */
  lowStock: VariantRecord[];
}

/**
 * The writes of one step for an order, from fresh reads. Refuses (reservation): out_of_stock
 * naming every variant short of the summed demand; invalid_request for a variant gone.
 */
export async function stockStep(
  deps: StoreDeps,
  actor: Actor,
  order: { id: string; lines: readonly OrderLine[] },
  step: StockStep,
): Promise<StepWrites> {
  const demand = [...demandOf(order.lines)];
  const read = await getItems(deps, demand.map(([variantId, { offeringId }]) => catalogKeys.variant(offeringId, variantId)));
  const items: TransactItem[] = [];
  const lowStock: VariantRecord[] = [];
  const short: { field: string; message: string }[] = [];
  const now = deps.clock.now().toISOString();
  demand.forEach(([variantId, { quantity }], index) => {
    const before = read[index] as VariantRecord | undefined;
    if (!before) throw new AppError('invalid_request', `Variant ${variantId} no longer exists.`, { errors: [{ field: 'lines', message: `variant ${variantId} is gone` }] });
    if (!before.track_inventory) return;
    let after: VariantRecord;
    let change: number;
    switch (step) {
      case 'reservation':
        if (!before.allow_backorder && before.on_hand - before.reserved < quantity) {
          short.push({ field: `variant ${variantId}`, message: `${quantity} wanted, ${Math.max(0, before.on_hand - before.reserved)} available` });
          return;
        }
        after = { ...before, reserved: before.reserved + quantity };
        change = quantity;
        break;
      case 'release':
        change = -Math.min(quantity, before.reserved);
        after = { ...before, reserved: before.reserved + change };
        break;
      case 'sale': {
        // A backordered unit sold beyond what is on hand leaves on_hand at zero, never below.
        change = -Math.min(quantity, before.on_hand);
        after = { ...before, reserved: Math.max(0, before.reserved - quantity), on_hand: before.on_hand + change };
        if (before.on_hand > before.low_stock_threshold && after.on_hand <= before.low_stock_threshold) lowStock.push(after);
        break;
      }
      case 'restock':
        change = quantity;
        after = { ...before, on_hand: before.on_hand + quantity };
        break;
    }
    after = { ...after, updated_at: now, version: before.version + 1 };
    items.push(versionedPut(deps, variantItem(after), before.version), movementItem(deps, actor, after, { kind: step, quantity: change, reason: `order ${order.id}`, orderId: order.id }).item);
  });
  if (short.length > 0) throw new AppError('out_of_stock', `Not enough stock for ${short.length} variant(s): nothing was reserved.`, { errors: short });
  return { items, lowStock };
}
