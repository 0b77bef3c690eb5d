import type { TransactItem } from '../../aws/dynamodb';
import { commitVersioned, StaleRead, versionedPut, withFreshReads } from '../../aws/fresh-reads';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { Actor, StoreDeps } from '../deps';
import type { ClientRecord } from './clients';
import { catalogKeys } from './keys';
import {
  clientOffering,
  invalidField,
  isLive,
  MAX_LIVE_VARIANTS,
  movementItem,
  offeringItem,
  priceOf,
  pricingModeOf,
  productEvent,
  releaseGuard,
  skuGuard,
  variantItem,
  variantView,
  type OfferingRecord,
  type OfferingWithVariants,
  type Variant,
  type VariantRecord,
} from './records';
import type { VariantCreate, VariantPatch } from './schemas';

/**
 * Variants: what a shopper buys of an item offering (spec part 2). Each lives in its offering's
 * partition; its SKU is unique in the client's catalog (a guard item per SKU). Every write is
 * conditioned on the version read, so concurrent writers (a stock change, another patch) make the
 * loser read again instead of overwriting (shared/aws/fresh-reads.ts). Adding, changing or retiring a
 * variant is a `product.updated` event in the same transaction.
 */

export const skuTaken = (sku: string, field = 'sku') => new AppError('conflict', `SKU ${sku} is already used in this catalog.`, { errors: [{ field, message: 'taken' }] });

/** A new variant's record. Refuses: invalid_request (a plan, options that do not match, pricing). */
export function newVariant(deps: StoreDeps, offering: OfferingRecord, input: VariantCreate, position: number, field = ''): VariantRecord {
  if (offering.kind === 'plan') throw invalidField(`${field}variants`, 'a plan is priced by its amount and interval and has no variants');
  const optionValues = input.option_values ?? [];
  if (offering.options.length > 0 && optionValues.length !== offering.options.length) {
    throw invalidField(`${field}option_values`, `give one value for each option (${offering.options.join(', ')})`);
  }
  const pricingMode = pricingModeOf(input);
  const inventory = { track_inventory: true, on_hand: 0, low_stock_threshold: 0, allow_backorder: false, ...input.inventory };
  const now = deps.clock.now().toISOString();
  return {
    id: deps.ids(),
    tenant_id: offering.tenant_id,
    client_id: offering.client_id,
    offering_id: offering.id,
    sku: input.sku,
    barcode: input.barcode ?? null,
    option_values: optionValues,
    position,
    pricing_mode: pricingMode,
    cost_amount: input.cost_amount ?? null,
    markup: input.markup ?? null,
    amount: priceOf({ ...input, pricing_mode: pricingMode }, offering.markup, field),
    image_url: input.image_url ?? null,
    ...inventory,
    reserved: 0,
    status: 'active',
    created_at: now,
    updated_at: now,
    version: 1,
  };
}

/** The writes of a new variant: itself, its SKU guard, and a `restock` movement for its opening stock. */
export function newVariantWrites(deps: StoreDeps, actor: Actor, record: VariantRecord): TransactItem[] {
  const items: TransactItem[] = [{ Put: { TableName: deps.table, Item: variantItem(record), ConditionExpression: 'attribute_not_exists(pk)' } }, skuGuard(deps, record)];
  if (record.on_hand > 0) items.push(movementItem(deps, actor, record, { kind: 'restock', quantity: record.on_hand, reason: 'opening stock' }).item);
  return items;
}

const touched = (offering: OfferingRecord, now: string): OfferingRecord => ({ ...offering, updated_at: now, version: offering.version + 1 });

/**
 * Adds a variant to an item offering. Refuses: offering_not_found, invalid_transition (an archived
 * offering), invalid_request (a plan, too many live variants, options, pricing), conflict (SKU taken).
 */
export async function addVariant(deps: StoreDeps, actor: Principal, client: ClientRecord, offeringId: string, input: VariantCreate): Promise<Variant> {
  return withFreshReads(async () => {
    const found = await clientOffering(deps, client.id, offeringId);
    if (found.offering.status === 'archived') throw new AppError('invalid_transition', 'An archived offering takes no new variants.');
    const live = found.variants.filter(isLive);
    if (live.length >= MAX_LIVE_VARIANTS) throw invalidField('sku', `an offering holds at most ${MAX_LIVE_VARIANTS} live variants`);
    const position = Math.max(0, ...found.variants.map((v) => v.position)) + 1;
    const record = newVariant(deps, found.offering, input, position);
    const offering = touched(found.offering, record.created_at);
    const after: OfferingWithVariants = { offering, variants: [...found.variants, record] };
    const writes = newVariantWrites(deps, actor, record);
    await commitVersioned(deps, [versionedPut(deps, offeringItem(offering), found.offering.version), ...writes, productEvent(deps, 'product.updated', after, client)], [0], (failed) => {
      if (failed.includes(2)) throw skuTaken(record.sku);
      throw new StaleRead();
    });
    return variantView(record);
  });
}

/** A live variant of the client's offering. Refuses: offering_not_found, not_found. */
function variantOf(found: OfferingWithVariants, variantId: string): VariantRecord {
  const record = found.variants.find((v) => v.id === variantId);
  if (!record) throw new AppError('not_found', `No variant ${variantId} in offering ${found.offering.id}.`);
  return record;
}

/**
 * Changes a live variant's details, price or inventory settings (on_hand changes only through the
 * stock route). Refuses: offering_not_found, not_found, invalid_transition (archived), invalid_request,
 * conflict (SKU taken).
 */
export async function patchVariant(deps: StoreDeps, client: ClientRecord, offeringId: string, variantId: string, patch: VariantPatch): Promise<Variant> {
  return withFreshReads(async () => {
    const found = await clientOffering(deps, client.id, offeringId);
    const before = variantOf(found, variantId);
    if (before.status === 'archived') throw new AppError('invalid_transition', `Variant ${variantId} is archived.`);
    const now = deps.clock.now().toISOString();
    const merged = {
      pricing_mode: patch.pricing_mode ?? before.pricing_mode,
      amount: patch.amount === undefined ? before.amount : patch.amount,
      cost_amount: patch.cost_amount === undefined ? before.cost_amount : patch.cost_amount,
      markup: patch.markup === undefined ? before.markup : patch.markup,
    };
    if (found.offering.options.length > 0 && patch.option_values && patch.option_values.length !== found.offering.options.length) {
      throw invalidField('option_values', `give one value for each option (${found.offering.options.join(', ')})`);
    }
    const after: VariantRecord = {
      ...before,
      sku: patch.sku ?? before.sku,
      barcode: patch.barcode === undefined ? before.barcode : patch.barcode,
      option_values: patch.option_values ?? before.option_values,
      ...merged,
      amount: priceOf(merged, found.offering.markup),
      image_url: patch.image_url === undefined ? before.image_url : patch.image_url,
      track_inventory: patch.inventory?.track_inventory ?? before.track_inventory,
      low_stock_threshold: patch.inventory?.low_stock_threshold ?? before.low_stock_threshold,
      allow_backorder: patch.inventory?.allow_backorder ?? before.allow_backorder,
      updated_at: now,
      version: before.version + 1,
    };
    if (!after.allow_backorder && after.reserved > after.on_hand) {
      throw invalidField('inventory.allow_backorder', `${after.reserved} units are reserved against ${after.on_hand} on hand: backorders cannot be turned off now`);
    }
    const items: TransactItem[] = [versionedPut(deps, variantItem(after), before.version)];
    if (after.sku !== before.sku) items.push(skuGuard(deps, after), releaseGuard(deps, catalogKeys.sku(client.id, before.sku)));
    const state: OfferingWithVariants = { offering: touched(found.offering, now), variants: found.variants.map((v) => (v.id === after.id ? after : v)) };
    items.push(versionedPut(deps, offeringItem(state.offering), found.offering.version), productEvent(deps, 'product.updated', state, client));
    const offeringIndex = items.length - 2;
    await commitVersioned(deps, items, [0, offeringIndex], () => {
      throw skuTaken(after.sku);
    });
    return variantView(after);
  });
}

/**
 * Retires a variant: it leaves the offering and Explore, its stock log stays. Retiring one already
 * archived answers it unchanged. Refuses: offering_not_found, not_found, invalid_request (the last
 * live variant: archive the product instead).
 */
export async function retireVariant(deps: StoreDeps, client: ClientRecord, offeringId: string, variantId: string): Promise<Variant> {
  return withFreshReads(async () => {
    const found = await clientOffering(deps, client.id, offeringId);
    const before = variantOf(found, variantId);
    if (before.status === 'archived') return variantView(before);
    if (found.variants.filter(isLive).length === 1) {
      throw new AppError('invalid_request', 'This is the offering\'s last live variant: archive the product instead.', {
        errors: [{ field: 'variantId', message: 'the last live variant' }],
      });
    }
    const now = deps.clock.now().toISOString();
    const after: VariantRecord = { ...before, status: 'archived', updated_at: now, version: before.version + 1 };
    const state: OfferingWithVariants = { offering: touched(found.offering, now), variants: found.variants.map((v) => (v.id === after.id ? after : v)) };
    await commitVersioned(
      deps,
      [versionedPut(deps, variantItem(after), before.version), versionedPut(deps, offeringItem(state.offering), found.offering.version), productEvent(deps, 'product.updated', state, client)],
      [0, 1],
    );
    return variantView(after);
  });
}
