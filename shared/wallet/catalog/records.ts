import type * as z from '../../kernel/zod';
import type { TransactItem } from '../../aws/dynamodb';
import { getItem, queryAll, type Item } from '../../aws/store';
import { bool, codec, int, nullable, num, obj, oneOf, str, strList, strMap, type Reader } from '../../kernel/codec';
import { scaledDecimal } from '../../kernel/decimal';
import { AppError, type FieldError } from '../../kernel/errors';
import type { Actor, StoreDeps } from '../deps';
import type { ClientRecord } from './clients';
import { outboxItem } from '../../events/outbox';
import { catalogKeys } from './keys';
import { INTERVALS, MOVEMENT_KINDS, OFFERING_KINDS, OFFERING_STATUSES, PRICING_MODES, VARIANT_STATUSES } from './fields';
import type { exploreOffering, exploreVariant } from './explore-schemas';
import type { markup as markupSchema, offering, stockMovement, variant, VariantCreate } from './schemas';

/**
 * The catalog's stored records and the views built from them: the merchant view (every field) and
 * the shopper view (every field of spec part 2 but cost, markup and the stock counts), and the pricing and inventory rules both
 * views and every write share (docs/catalog.md).
 */

export type Markup = z.infer<typeof markupSchema>;
export type Variant = z.infer<typeof variant>;
export type Offering = z.infer<typeof offering>;
export type StockMovement = z.infer<typeof stockMovement>;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

/** The most live variants one offering holds (archiving one retires them all in one transaction). */
export const MAX_LIVE_VARIANTS = 50;

export interface OfferingRecord {
  id: string;
  tenant_id: string;
  client_id: string;
  kind: 'item' | 'plan';
  ref: string | null;
  title: string;
  description: string;
  image_url: string | null;
  /** A plan's price; null for an item (priced per variant). */
  amount: number | null;
  interval: 'weekly' | 'monthly' | 'yearly' | null;
  metadata: Record<string, string>;
  /** The offering's own commission, overriding the client's; null to follow the client. */
  commission_bps: number | null;
  category_id: string | null;
  options: string[];
  markup: Markup | null;
  status: 'draft' | 'published' | 'archived';
  created_at: string;
  updated_at: string;
  version: number;
}

export interface VariantRecord {
  id: string;
  tenant_id: string;
  client_id: string;
  offering_id: string;
  sku: string;
  barcode: string | null;
  option_values: string[];
  position: number;
  pricing_mode: 'manual' | 'markup';
  cost_amount: number | null;
  markup: Markup | null;
  amount: number;
  image_url: string | null;
  track_inventory: boolean;
  on_hand: number;
  reserved: number;
  low_stock_threshold: number;
  allow_backorder: boolean;
  status: 'active' | 'archived';
  created_at: string;
  updated_at: string;
  version: number;
}

export interface OfferingWithVariants {
  offering: OfferingRecord;
  /** Every variant, live and archived, by position. */
  variants: VariantRecord[];
}

export const isLive = (record: VariantRecord): boolean => record.status === 'active';

// ---------------------------------------------------------------------------------------------
// Codecs (../../kernel/codec.ts): only the declared fields come out, so a record changed and put
// back carries the keys its item builder gives it, never an index key of the state it was read in.

/** A markup: a percent has at most two decimals, a fixed markup is an integer amount. */
const storedMarkup: Reader<Markup> = (value, entity, field) => {
  const read = obj<Markup>({ kind: oneOf('percent', 'fixed'), value: num })(value, entity, field);
  if (read.kind === 'fixed') int(read.value, entity, `${field}.value`);
  return read;
};

export const toOfferingRecord = codec<OfferingRecord>('offering', {
  id: str,
  tenant_id: str,
  client_id: str,
  kind: oneOf(...OFFERING_KINDS),
  ref: nullable(str),
  title: str,
  description: str,
  image_url: nullable(str),
  amount: nullable(int),
  interval: nullable(oneOf(...INTERVALS)),
  metadata: strMap,
  commission_bps: nullable(int),
  category_id: nullable(str),
  options: strList,
  markup: nullable(storedMarkup),
  status: oneOf(...OFFERING_STATUSES),
  created_at: str,
  updated_at: str,
  version: int,
});

export const toVariantRecord = codec<VariantRecord>('variant', {
  id: str,
  tenant_id: str,
  client_id: str,
  offering_id: str,
  sku: str,
  barcode: nullable(str),
  option_values: strList,
  position: int,
  pricing_mode: oneOf(...PRICING_MODES),
  cost_amount: nullable(int),
  markup: nullable(storedMarkup),
  amount: int,
  image_url: nullable(str),
  track_inventory: bool,
  on_hand: int,
  reserved: int,
  low_stock_threshold: int,
  allow_backorder: bool,
  status: oneOf(...VARIANT_STATUSES),
  created_at: str,
  updated_at: str,
  version: int,
});

// ---------------------------------------------------------------------------------------------
// Pricing

/**
 * The price of a variant. manual: `amount` as given. markup: cost_amount plus the markup (the
 * variant's own, else the offering's): fixed adds minor units; percent adds cost × percent / 100
 * rounded half up to the minor unit, computed exactly in integers from the percent in basis points
 * (12.5 % is 1 250 bps: 999 × 1 250 / 10 000 = 124.875, so 125). Refuses: invalid_request naming the field.
 */
export function priceOf(
  input: { pricing_mode: 'manual' | 'markup'; amount?: number | null; cost_amount?: number | null; markup?: Markup | null },
  offeringMarkup: Markup | null,
  field = '',
): number {
  const invalid = (name: string, message: string) => new AppError('invalid_request', `${field}${name}: ${message}`, { errors: [{ field: `${field}${name}`, message }] });
  if (input.pricing_mode === 'manual') {
    if (input.amount === undefined || input.amount === null) throw invalid('amount', 'required when pricing_mode is manual');
    return input.amount;
  }
  if (input.cost_amount === undefined || input.cost_amount === null) throw invalid('cost_amount', 'required when pricing_mode is markup');
  const rule = input.markup ?? offeringMarkup;
  if (!rule) throw invalid('markup', 'required when pricing_mode is markup and the offering has none');
  const price = input.cost_amount + (rule.kind === 'fixed' ? rule.value : percentOf(input.cost_amount, rule.value));
  if (price < 1) throw invalid('cost_amount', 'the marked-up price must be at least 1');
  if (price > 2 ** 45) throw invalid('cost_amount', 'the marked-up price is out of range');
  return price;
}

/**
 * `percent` % of `cost`, rounded half up to the minor unit. The percent has at most two decimals
 * (the schema and the body scan hold it to that), so its decimal text is a whole number of basis points, and the
 * product is taken in BigInt: cost up to 2^45 times 100 000 bps is past 2^53.
 */
export function percentOf(cost: number, percent: number): number {
  const bps = scaledDecimal(percent, 2);
  if (bps === undefined) throw new Error(`percent ${percent} is not a decimal of at most two places`);
  return Number((BigInt(cost) * bps + 5_000n) / 10_000n);
}

/** A variant's pricing mode when the request names none: markup if it gives cost and markup without an amount. */
export const pricingModeOf = (input: Pick<VariantCreate, 'pricing_mode' | 'amount' | 'cost_amount'>): 'manual' | 'markup' =>
  input.pricing_mode ?? (input.amount === undefined && input.cost_amount !== undefined ? 'markup' : 'manual');

// ---------------------------------------------------------------------------------------------
// Views

export function inventoryOf(record: VariantRecord) {
  const available = record.on_hand - record.reserved;
  return {
    track_inventory: record.track_inventory,
    on_hand: record.on_hand,
    reserved: record.reserved,
    available,
    low_stock_threshold: record.low_stock_threshold,
    allow_backorder: record.allow_backorder,
    in_stock: !record.track_inventory || record.allow_backorder || available > 0,
    low_stock: record.track_inventory && available <= record.low_stock_threshold,
  };
}

export const variantView = (record: VariantRecord): Variant => ({
  id: record.id,
  offering_id: record.offering_id,
  sku: record.sku,
  barcode: record.barcode,
  option_values: record.option_values,
  position: record.position,
  pricing_mode: record.pricing_mode,
  cost_amount: record.cost_amount,
  markup: record.markup,
  amount: record.amount,
  image_url: record.image_url,
  inventory: inventoryOf(record),
  status: record.status,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

const displayAmount = (offering: OfferingRecord, live: VariantRecord[]): number | null =>
  offering.kind === 'plan' ? offering.amount : live.length === 0 ? null : Math.min(...live.map((v) => v.amount));

/** The merchant view: any status, live variants with merchant-only pricing and counts. */
export function offeringView({ offering, variants }: OfferingWithVariants, client: Pick<ClientRecord, 'commission_bps'>): Offering {
  const live = variants.filter(isLive);
  return {
    id: offering.id,
    client_id: offering.client_id,
    kind: offering.kind,
    ref: offering.ref,
    title: offering.title,
    description: offering.description,
    image_url: offering.image_url,
    amount: displayAmount(offering, live),
    interval: offering.interval,
    metadata: offering.metadata,
    commission_bps: offering.commission_bps ?? client.commission_bps,
    category_id: offering.category_id,
    options: offering.options,
    markup: offering.markup,
    variants: live.map(variantView),
    status: offering.status,
    created_at: offering.created_at,
    updated_at: offering.updated_at,
  };
}

/** The shopper view of a live variant: everything but cost, markup and the stock counts. */
export const shopperVariant = (record: VariantRecord): z.infer<typeof exploreVariant> => {
  const { track_inventory, in_stock, low_stock, allow_backorder } = inventoryOf(record);
  return {
    id: record.id,
    offering_id: record.offering_id,
    sku: record.sku,
    barcode: record.barcode,
    option_values: record.option_values,
    position: record.position,
    pricing_mode: record.pricing_mode,
    amount: record.amount,
    image_url: record.image_url,
    inventory: { track_inventory, in_stock, low_stock, allow_backorder },
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
};

/** The shopper view of a published offering: everything but its default markup and its variants' merchant-only fields. */
export function shopperOffering({ offering, variants }: OfferingWithVariants, client: Pick<ClientRecord, 'commission_bps'>): z.infer<typeof exploreOffering> {
  const live = variants.filter(isLive);
  return {
    id: offering.id,
    client_id: offering.client_id,
    kind: offering.kind,
    title: offering.title,
    description: offering.description,
    image_url: offering.image_url,
    amount: displayAmount(offering, live),
    interval: offering.interval,
    metadata: offering.metadata,
    commission_bps: offering.commission_bps ?? client.commission_bps,
    category_id: offering.category_id,
    options: offering.options,
    variants: live.map(shopperVariant),
    status: offering.status,
    created_at: offering.created_at,
    updated_at: offering.updated_at,
  };
}

export const movementView: (item: Item) => StockMovement = codec<StockMovement>('stock_movement', {
  id: str,
  client_id: str,
  offering_id: str,
  variant_id: str,
  kind: oneOf(...MOVEMENT_KINDS),
  quantity: int,
  on_hand_after: int,
  reserved_after: int,
  reason: str,
  order_id: nullable(str),
  actor_type: str,
  actor_id: str,
  created_at: str,
});

// ---------------------------------------------------------------------------------------------
// Reads and write items shared by the services

/** An offering and all its variants: one query of its partition. Undefined when absent. */
export async function readOffering(deps: StoreDeps, offeringId: string): Promise<OfferingWithVariants | undefined> {
  let offering: OfferingRecord | undefined;
  const variants: VariantRecord[] = [];
  for await (const item of queryAll(deps, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': catalogKeys.offeringPartition(offeringId) },
    ConsistentRead: true,
  })) {
    if (item.sk === 'OFFERING') offering = toOfferingRecord(item);
    else if (typeof item.sk === 'string' && item.sk.startsWith(catalogKeys.variantPrefix)) variants.push(toVariantRecord(item));
  }
  if (!offering) return undefined;
  variants.sort((a, b) => a.position - b.position);
  return { offering, variants };
}

/** The client's offering without its variants: one read. Refuses: offering_not_found (absent, or another client's). */
export async function clientOfferingHead(deps: StoreDeps, clientId: string, offeringId: string): Promise<OfferingRecord> {
  const head = await getItem(deps, catalogKeys.offering(offeringId));
  if (!head || head.client_id !== clientId) throw new AppError('offering_not_found', `No offering ${offeringId}.`);
  return toOfferingRecord(head);
}

/** The client's offering. Refuses: offering_not_found (absent, or another client's). */
export async function clientOffering(deps: StoreDeps, clientId: string, offeringId: string): Promise<OfferingWithVariants> {
  const found = await readOffering(deps, offeringId);
  if (!found || found.offering.client_id !== clientId) throw new AppError('offering_not_found', `No offering ${offeringId}.`);
  return found;
}

export const offeringItem = (record: OfferingRecord): Item => ({
  ...catalogKeys.offering(record.id),
  entity: 'offering',
  gsi1pk: catalogKeys.clientOfferings(record.client_id),
  gsi1sk: record.id,
  ...(record.status === 'published' ? { gsi2pk: catalogKeys.publishedOfferings(record.client_id), gsi2sk: record.id } : {}),
  ...record,
});

export const variantItem = (record: VariantRecord): Item => ({
  ...catalogKeys.variant(record.offering_id, record.id),
  ...catalogKeys.variantLookup(record.id),
  entity: 'variant',
  ...record,
});

/** A merchant's client (a client is its merchant's one profile): the item that says which. */
export const toMerchantClient = codec<{ client_id: string }>('merchant_client', { client_id: str });

/** What a SKU's guard names: the variant holding the SKU, and its offering. */
export const toSkuGuard = codec<{ offering_id: string; variant_id: string }>('sku', { offering_id: str, variant_id: str });

/** What a ref's guard names: the offering holding the ref. */
export const toRefGuard = codec<{ offering_id: string }>('offering_ref', { offering_id: str });

/** The guard that keeps a SKU unique in the client's catalog. */
export const skuGuard = (deps: StoreDeps, record: Pick<VariantRecord, 'client_id' | 'sku' | 'offering_id' | 'id'>): TransactItem => ({
  Put: {
    TableName: deps.table,
    Item: { ...catalogKeys.sku(record.client_id, record.sku), entity: 'sku', offering_id: record.offering_id, variant_id: record.id },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const refGuard = (deps: StoreDeps, clientId: string, ref: string, offeringId: string): TransactItem => ({
  Put: {
    TableName: deps.table,
    Item: { ...catalogKeys.ref(clientId, ref), entity: 'offering_ref', offering_id: offeringId },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const releaseGuard = (deps: StoreDeps, key: { pk: string; sk: string }): TransactItem => ({ Delete: { TableName: deps.table, Key: key } });

/** One stock log entry, written in the same transaction as the change it records. */
export function movementItem(
  deps: StoreDeps,
  actor: Actor,
  after: Pick<VariantRecord, 'tenant_id' | 'client_id' | 'offering_id' | 'id' | 'on_hand' | 'reserved'>,
  entry: { kind: MovementKind; quantity: number; reason: string; orderId?: string },
): { item: TransactItem; movement: StockMovement } {
  const movement: StockMovement = {
    id: deps.ids(),
    client_id: after.client_id,
    offering_id: after.offering_id,
    variant_id: after.id,
    kind: entry.kind,
    quantity: entry.quantity,
    on_hand_after: after.on_hand,
    reserved_after: after.reserved,
    reason: entry.reason,
    order_id: entry.orderId ?? null,
    actor_type: actor.kind,
    actor_id: actor.id,
    created_at: deps.clock.now().toISOString(),
  };
  const item: TransactItem = {
    Put: {
      TableName: deps.table,
      Item: {
        ...catalogKeys.movement(movement.id),
        entity: 'stock_movement',
        tenant_id: after.tenant_id,
        gsi1pk: catalogKeys.clientMovements(after.client_id),
        gsi1sk: movement.id,
        gsi2pk: catalogKeys.variantMovements(after.id),
        gsi2sk: movement.id,
        ...movement,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  return { item, movement };
}

/** Changes the client's count of published offerings (Explore lists clients with at least one). */
export const publishedCountItem = (deps: StoreDeps, clientId: string, delta: number): TransactItem => ({
  Update: { TableName: deps.table, Key: catalogKeys.client(clientId), UpdateExpression: 'ADD published_count :delta', ExpressionAttributeValues: { ':delta': delta } },
});

/** A field error of the catalog's writes. */
export const invalidField = (field: string, message: string): AppError =>
  new AppError('invalid_request', `${field}: ${message}`, { errors: [{ field, message } satisfies FieldError] });

/** A product.* event for the tenant's endpoints and the client's merchant endpoints, in the same transaction as the change. */
export function productEvent(
  deps: StoreDeps,
  type: 'product.created' | 'product.updated' | 'product.archived',
  after: OfferingWithVariants,
  client: Pick<ClientRecord, 'commission_bps'>,
): TransactItem {
  return outboxItem(deps, { type, tenantId: after.offering.tenant_id, clientId: after.offering.client_id, data: { offering: offeringView(after, client) } }).item;
}
