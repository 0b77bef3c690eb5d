import * as z from 'zod';
import { decimalNumber, withDecimalPaths } from '../../http/decimals';
import { cursor, exactlyOneOf, metadata, pageLimit, someField, timestamp, uuid, createdRange } from '../../http/schemas';
import { httpsUrl, text } from './client-schemas';
import { OFFERING_STATUSES, OFFERING_KINDS, INTERVALS, VARIANT_STATUSES, PRICING_MODES, MOVEMENT_KINDS } from './fields';

/**
 * Request and response shapes of the catalog (spec part 2: offering, variant, stock movement;
 * docs/catalog.md; a client's are in ./client-schemas.ts). Merchant views carry cost, markup and stock counts; the shopper
 * views (`explore*`) are separate schemas that never declare them.
 */

/** One ledger leg's bound (2^45), as everywhere money is named. */
export const MAX_AMOUNT = 2 ** 45;
const price = z.number().int().min(1).max(MAX_AMOUNT);
const cost = z.number().int().min(0).max(MAX_AMOUNT);
const count = z.number().int().min(0).max(1_000_000_000);

// ---------------------------------------------------------------------------------------------
// Pricing and inventory

/** The most a percent markup adds: ten times the cost. */
export const MAX_MARKUP_PERCENT = 1_000;

/**
 * percent: a percentage of cost_amount, to a hundredth of a percent (`12.5`, `7.25`: the one
 * decimal field of the API, ../../http/decimals.ts; priced from its basis points); fixed: an amount in
 * minor units, an integer like every amount. The price it gives is integer minor units (priceOf).
 */
export const markup = z
  .object({
    kind: z.enum(['percent', 'fixed']),
    value: decimalNumber({
      min: 0,
      max: MAX_AMOUNT,
      places: 2,
      description: 'percent: a percentage of cost_amount, 0..1000 with at most 2 decimal places (12.5); fixed: an integer amount in minor units.',
    }),
  })
  .strict()
  .refine((m) => m.kind === 'percent' || Number.isInteger(m.value), { message: 'a fixed markup is an amount in minor units: an integer', path: ['value'] })
  .refine((m) => m.kind === 'fixed' || m.value <= MAX_MARKUP_PERCENT, { message: `a percent markup is at most ${MAX_MARKUP_PERCENT}`, path: ['value'] })
  // The two refinements above, as the documents say them: each kind's bound on `value`.
  .meta({
    oneOf: [
      { properties: { kind: { enum: ['percent'] }, value: { maximum: MAX_MARKUP_PERCENT } } },
      { properties: { kind: { enum: ['fixed'] }, value: { type: 'integer' } } },
    ],
  });

export const inventoryInput = z
  .object({
    track_inventory: z.boolean().default(true),
    on_hand: count.default(0),
    low_stock_threshold: count.default(0),
    allow_backorder: z.boolean().default(false),
  })
  .strict();

export const inventory = z
  .object({
    track_inventory: z.boolean(),
    on_hand: z.number().int(),
    reserved: z.number().int(),
    /** on_hand − reserved. */
    available: z.number().int(),
    low_stock_threshold: z.number().int(),
    allow_backorder: z.boolean(),
    in_stock: z.boolean(),
    low_stock: z.boolean(),
  })
  .meta({ id: 'Inventory' });

// ---------------------------------------------------------------------------------------------
// Variants

const sku = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,63}$/, 'letters, digits and . _ - / (at most 64)');
const optionValues = z.array(z.string().min(1).max(100)).max(10);

export const variantFields = {
  sku,
  barcode: z.string().min(1).max(64).optional(),
  option_values: optionValues.optional(),
  /** manual: `amount` is the price; markup: amount = cost_amount + markup (the variant's, else the offering's). */
  pricing_mode: z.enum(PRICING_MODES).optional(),
  amount: price.optional(),
  cost_amount: cost.optional(),
  markup: markup.optional(),
  image_url: httpsUrl.optional(),
};

export const variantCreate = z.object({ ...variantFields, inventory: inventoryInput.optional() }).strict();
export type VariantCreate = z.infer<typeof variantCreate>;

export const variantPatch = someField(
  z
  .object({
    ...variantFields,
    sku: sku.optional(),
    barcode: z.string().min(1).max(64).nullable().optional(),
    markup: markup.nullable().optional(),
    cost_amount: cost.nullable().optional(),
    image_url: httpsUrl.nullable().optional(),
    inventory: z.object({ track_inventory: z.boolean(), low_stock_threshold: count, allow_backorder: z.boolean() }).partial().strict().optional(),
  })
  .strict(),
  'name at least one field',
);
export type VariantPatch = z.infer<typeof variantPatch>;

export const variant = z
  .object({
    id: uuid,
    offering_id: uuid,
    sku: z.string(),
    barcode: z.string().nullable(),
    option_values: z.array(z.string()),
    position: z.number().int(),
    pricing_mode: z.enum(PRICING_MODES),
    cost_amount: z.number().int().nullable(),
    markup: markup.nullable(),
    amount: z.number().int(),
    image_url: z.string().nullable(),
    inventory,
    status: z.enum(VARIANT_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Variant' });

export const stockChange = exactlyOneOf(
  z
  .object({
    /** Signed units to add or remove. */
    delta: z
      .number()
      .int()
      .min(-1_000_000_000)
      .max(1_000_000_000)
      .refine((d) => d !== 0, 'must not be 0')
      .meta({ not: { enum: [0] } })
      .optional(),
    /** The absolute count on hand. */
    set_to: count.optional(),
    reason: z.string().trim().min(1).max(500),
    /** Compare-and-swap: the change applies only if on_hand is exactly this (else 409 conflict). */
    expected_on_hand: count.optional(),
  })
  .strict(),
  ['delta', 'set_to'],
  'give exactly one of delta or set_to',
);

export const stockMovement = z
  .object({
    id: uuid,
    client_id: uuid,
    offering_id: uuid,
    variant_id: uuid,
    kind: z.enum(MOVEMENT_KINDS),
    quantity: z.number().int(),
    on_hand_after: z.number().int(),
    reserved_after: z.number().int(),
    reason: z.string(),
    order_id: uuid.nullable(),
    actor_type: z.string(),
    actor_id: z.string(),
    created_at: timestamp,
  })
  .meta({ id: 'StockMovement' });

export const stockChangeResult = z.object({ variant, movement: stockMovement }).meta({ id: 'StockChangeResult' });
export const movementListQuery = z.object({ variant_id: uuid.optional(), ...createdRange, cursor, limit: pageLimit() }).strict();

// ---------------------------------------------------------------------------------------------
// Offerings

const offeringFields = {
  title: z.string().trim().min(1).max(200),
  description: text(5000).optional(),
  image_url: httpsUrl.optional(),
  /** A plan's price per interval (required for a plan, refused for an item: items are priced per variant). */
  amount: price.optional(),
  interval: z.enum(INTERVALS).optional(),
  metadata: metadata.optional(),
  /** Overrides the client's commission for this offering. */
  commission_bps: z.number().int().min(0).max(10_000).nullable().optional(),
  category_id: uuid.nullable().optional(),
  /** Option names (e.g. size, color); each variant's option_values follow them. */
  options: z.array(z.string().min(1).max(50)).max(10).optional(),
  /** Default markup of its markup-priced variants. */
  markup: markup.nullable().optional(),
  /** The merchant's own product reference, unique in the client's catalog (bulk import matches on it). */
  ref: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,99}$/, 'letters, digits and . _ - / (at most 100)').optional(),
};

export const offeringCreate = z
  .object({
    kind: z.enum(OFFERING_KINDS).default('item'),
    ...offeringFields,
    status: z.enum(['draft', 'published']).default('draft'),
    variants: z.array(variantCreate).max(50).optional(),
  })
  .strict()
  // What each kind takes, as the service refuses it (./offerings.ts): a plan its amount and
  // interval and no variants, an item (the default) neither amount nor interval.
  .meta({
    oneOf: [
      { properties: { kind: { enum: ['plan'] }, variants: { maxItems: 0 } }, required: ['kind', 'amount', 'interval'] },
      { properties: { kind: { enum: ['item'] } }, not: { anyOf: [{ required: ['amount'] }, { required: ['interval'] }] } },
    ],
  });
export type OfferingCreate = z.infer<typeof offeringCreate>;

export const offeringPatch = someField(
  z.object({ ...offeringFields, title: offeringFields.title.optional(), status: z.enum(OFFERING_STATUSES).optional() }).strict(),
  'name at least one field',
);
export type OfferingPatch = z.infer<typeof offeringPatch>;

export const offering = z
  .object({
    id: uuid,
    client_id: uuid,
    kind: z.enum(OFFERING_KINDS),
    ref: z.string().nullable(),
    title: z.string(),
    description: z.string(),
    image_url: z.string().nullable(),
    /** A plan's price; an item's lowest live variant price (null without one). */
    amount: z.number().int().nullable(),
    interval: z.enum(INTERVALS).nullable(),
    metadata: z.record(z.string(), z.string()),
    /** The commission that applies: the offering's override, else the client's. */
    commission_bps: z.number().int(),
    category_id: uuid.nullable(),
    options: z.array(z.string()),
    markup: markup.nullable(),
    /** Live (active) variants, by position. */
    variants: z.array(variant),
    status: z.enum(OFFERING_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Offering' });

export const offeringListQuery = z.object({ status: z.enum(OFFERING_STATUSES).optional(), ...createdRange, cursor, limit: pageLimit(20, 50) }).strict();

// ---------------------------------------------------------------------------------------------
// Bulk import

export const IMPORT_MAX_BYTES = 256 * 1024;
export const IMPORT_MAX_ROWS = 100;

export const importRequest = z
  .object({
    format: z.enum(['json', 'csv']),
    /** json: `{products: [...]}`; csv: the file's text (header line first). */
    content: z.union([
      z.string().max(IMPORT_MAX_BYTES),
      // Read row by row later (./import-files.ts); a variant's percent markup is decimal there too.
      withDecimalPaths(
        z
          .record(z.string(), z.unknown())
          .describe('The file as JSON, `{products: [...]}`. Its numbers are integers, but a percent markup value (`products[].variants[].markup.value`), which takes at most 2 decimal places.'),
        [{ path: 'products[].variants[].markup.value', places: 2 }],
      ),
    ]),
    /** Validate and report what would change; write nothing. */
    dry_run: z.boolean().default(false),
  })
  .strict();

const importedProduct = z.object({ ref: z.string(), offering_id: uuid.nullable() }).meta({ id: 'ImportedProduct' });

export const catalogImport = z
  .object({
    id: uuid,
    client_id: uuid,
    format: z.enum(['json', 'csv']),
    dry_run: z.boolean(),
    /** Products and variants read from the file. */
    products: z.number().int(),
    rows: z.number().int(),
    /** Products by what the import did to them (a dry run's new products have no id yet). */
    created: z.array(importedProduct),
    updated: z.array(importedProduct),
    archived: z.array(importedProduct),
    unchanged: z.array(importedProduct),
    created_at: timestamp,
  })
  .meta({ id: 'CatalogImport' });
