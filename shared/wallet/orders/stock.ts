import type { TransactItem } from '../../aws/dynamodb';
import { getItems } from '../../aws/store';
import { AppError } from '../../kernel/errors';
import type { Actor, StoreDeps } from '../deps';
import { catalogKeys } from '../catalog/keys';
import { movementItem, toVariantRecord, variantItem, type VariantRecord } from '../catalog/records';
import { versionedPut } from '../../aws/fresh-reads';
import type { OrderLine } from './records';

/**
 * An order's stock steps, held like a ledger pending: `reservation` at creation (reserved goes up
 * by the summed demand of the order's lines on each tracked variant, all variants or none), then
 * exactly one of `sale` (reserved and on_hand go down), `release` (cancel or expiry: reserved goes
 * down), and after a refund, `restock` (on_hand goes up). Each step reads the variants fresh and
 * writes them conditioned on the versions read, with one movement per variant, in the caller's
 * transaction.
 * The reservation answers the units the order holds per variant (`holds`: tracked variants only,
 * untracked ones hold nothing), which the order records; its release and sale act on exactly those
 * units whatever track_inventory says by then, so toggling it never moves another order's
 * reservation, and a variant's reserved is always what its open orders hold. The sale answers
 * what it took off on_hand (`sold`, recorded on the paid order), which is what a restock returns.
 * An order written before holds were recorded acts by the variants' flags of now, as it always did.
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

/** Units per variant id (what an order holds, what its sale took). */
export type Units = Record<string, number>;

export interface StepWrites {
  items: TransactItem[];
  /** Variants a sale brought to or under their low-stock threshold (on hand), this time. */
  lowStock: VariantRecord[];
  /** The units the step moved per variant: held by a reservation, taken off on_hand by a sale. */
  units: Units;
}

/** What a step acts on: the order's lines, and what its reservation held and its sale took (when recorded). */
export interface StockOrder {
  id: string;
  lines: readonly OrderLine[];
  holds?: Units;
  sold?: Units;
}

/**
 * The writes of one step for an order, from fresh reads. Refuses (reservation only): out_of_stock
 * naming every variant short of the summed demand; invalid_request for a variant gone. The other
 * steps refuse nothing (a sale lands after the ledger posted): a variant gone since is skipped.
 */
export async function stockStep(deps: StoreDeps, actor: Actor, order: StockOrder, step: StockStep): Promise<StepWrites> {
  const demand = demandOf(order.lines);
  // Recorded units are acted on exactly; without them (a reservation, an order from before
  // holds were recorded) a line's demand is acted on when its variant is tracked now.
  const recorded = step === 'reservation' ? undefined : step === 'restock' ? order.sold : order.holds;
  const wanted: [string, { offeringId: string; quantity: number }][] =
    recorded === undefined
      ? [...demand]
      : Object.entries(recorded).flatMap(([variantId, quantity]) => {
          const offeringId = demand.get(variantId)?.offeringId;
          return quantity > 0 && offeringId !== undefined ? [[variantId, { offeringId, quantity }] as [string, { offeringId: string; quantity: number }]] : [];
        });
  const read = await getItems(deps, wanted.map(([variantId, { offeringId }]) => catalogKeys.variant(offeringId, variantId)));
  const items: TransactItem[] = [];
  const lowStock: VariantRecord[] = [];
  const units: Units = {};
  const short: { field: string; message: string }[] = [];
  const now = deps.clock.now().toISOString();
  wanted.forEach(([variantId, { quantity }], index) => {
    const item = read[index];
    const before = item ? toVariantRecord(item) : undefined;
    if (!before) {
      if (step === 'reservation') throw new AppError('invalid_request', `Variant ${variantId} no longer exists.`, { errors: [{ field: 'lines', message: `variant ${variantId} is gone` }] });
      return;
    }
    if (recorded === undefined && !before.track_inventory) return;
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
        units[variantId] = quantity;
        break;
      case 'release':
        change = -Math.min(quantity, before.reserved);
        after = { ...before, reserved: before.reserved + change };
        break;
      case 'sale': {
        // A backordered unit sold beyond what is on hand leaves on_hand at zero, never below.
        change = -Math.min(quantity, before.on_hand);
        after = { ...before, reserved: Math.max(0, before.reserved - quantity), on_hand: before.on_hand + change };
        units[variantId] = -change;
        if (before.track_inventory && before.on_hand > before.low_stock_threshold && after.on_hand <= before.low_stock_threshold) lowStock.push(after);
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
  return { items, lowStock, units };
}
