import * as z from '../../kernel/zod';
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
const price = z.int().check(z.minimum(1), z.maximum(MAX_AMOUNT));
const cost = z.int().check(z.minimum(0), z.maximum(MAX_AMOUNT));
const count = z.int().check(z.minimum(0), z.maximum(1_000_000_000));

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
  .strictObject({
    kind: z.enum(['percent', 'fixed']),
    value: decimalNumber({
      min: 0,
      max: MAX_AMOUNT,
      places: 2,
      description: 'percent: a percentage of cost_amount, 0..1000 with at most 2 decimal places (12.5); fixed: an integer amount in minor units.',
    }),
  })
  .check(
    z.refine((m) => m.kind === 'percent' || Number.isInteger(m.value), { message: 'a fixed markup is an amount in minor units: an integer', path: ['value'] }),
    z.refine((m) => m.kind === 'fixed' || m.value <= MAX_MARKUP_PERCENT, { message: `a percent markup is at most ${MAX_MARKUP_PERCENT}`, path: ['value'] }),
    // The two refinements above, as the documents say them: each kind's bound on `value`.
    z.meta({
      oneOf: [
        { properties: { kind: { enum: ['percent'] }, value: { maximum: MAX_MARKUP_PERCENT } } },
        { properties: { kind: { enum: ['fixed'] }, value: { type: 'integer' } } },
      ],
    }),
  );

export const inventoryInput = z.strictObject({
  track_inventory: z._default(z.boolean(), true),
  on_hand: z._default(count, 0),
  low_stock_threshold: z._default(count, 0),
  allow_backorder: z._default(z.boolean(), false),
});

export const inventory = z
  .object({
    track_inventory: z.boolean(),
    on_hand: z.int(),
    reserved: z.int(),
    /** on_hand − reserved. */
    available: z.int(),
    low_stock_threshold: z.int(),
    allow_backorder: z.boolean(),
    in_stock: z.boolean(),
    low_stock: z.boolean(),
  })
  .check(z.meta({ id: 'Inventory' }));

// ---------------------------------------------------------------------------------------------
// Variants

const sku = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,63}$/, 'letters, digits and . _ - / (at most 64)'));
const optionValues = z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(10));

export const variantFields = {
  sku,
  barcode: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  option_values: z.optional(optionValues),
  /** manual: `amount` is the price; markup: amount = cost_amount + markup (the variant's, else the offering's). */
  pricing_mode: z.optional(z.enum(PRICING_MODES)),
  amount: z.optional(price),
  cost_amount: z.optional(cost),
  markup: z.optional(markup),
  image_url: z.optional(httpsUrl),
};

export const variantCreate = z.strictObject({ ...variantFields, inventory: z.optional(inventoryInput) });
export type VariantCreate = z.infer<typeof variantCreate>;

export const variantPatch = someField(
  z.strictObject({
    ...variantFields,
    sku: z.optional(sku),
    barcode: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(64)))),
    markup: z.optional(z.nullable(markup)),
    cost_amount: z.optional(z.nullable(cost)),
    image_url: z.optional(z.nullable(httpsUrl)),
    inventory: z.optional(z.partial(z.strictObject({ track_inventory: z.boolean(), low_stock_threshold: count, allow_backorder: z.boolean() }))),
  }),
  'name at least one field',
);
export type VariantPatch = z.infer<typeof variantPatch>;

export const variant = z
  .object({
    id: uuid,
    offering_id: uuid,
    sku: z.string(),
    barcode: z.nullable(z.string()),
    option_values: z.array(z.string()),
    position: z.int(),
    pricing_mode: z.enum(PRICING_MODES),
    cost_amount: z.nullable(z.int()),
    markup: z.nullable(markup),
    amount: z.int(),
    image_url: z.nullable(z.string()),
    inventory,
    status: z.enum(VARIANT_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Variant' }));

export const stockChange = exactlyOneOf(
  z.strictObject({
    /** Signed units to add or remove. */
    delta: z.optional(
      z.int().check(
        z.minimum(-1_000_000_000),
        z.maximum(1_000_000_000),
        z.refine((d) => d !== 0, 'must not be 0'),
        z.meta({ not: { enum: [0] } }),
      ),
    ),
    /** The absolute count on hand. */
    set_to: z.optional(count),
    reason: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)),
    /** Compare-and-swap: the change applies only if on_hand is exactly this (else 409 conflict). */
    expected_on_hand: z.optional(count),
  }),
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
    quantity: z.int(),
    on_hand_after: z.int(),
    reserved_after: z.int(),
    reason: z.string(),
    order_id: z.nullable(uuid),
    actor_type: z.string(),
    actor_id: z.string(),
    created_at: timestamp,
  })
  .check(z.meta({ id: 'StockMovement' }));

export const stockChangeResult = z.object({ variant, movement: stockMovement }).check(z.meta({ id: 'StockChangeResult' }));
export const movementListQuery = z.strictObject({ variant_id: z.optional(uuid), ...createdRange, cursor, limit: pageLimit() });

// ---------------------------------------------------------------------------------------------
// Offerings

const offeringFields = {
  title: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  description: z.optional(text(5000)),
  image_url: z.optional(httpsUrl),
  /** A plan's price per interval (required for a plan, refused for an item: items are priced per variant). */
  amount: z.optional(price),
  interval: z.optional(z.enum(INTERVALS)),
  metadata: z.optional(metadata),
  /** Overrides the client's commission for this offering. */
  commission_bps: z.optional(z.nullable(z.int().check(z.minimum(0), z.maximum(10_000)))),
  category_id: z.optional(z.nullable(uuid)),
  /** Option names (e.g. size, color); each variant's option_values follow them. */
  options: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(50))).check(z.maxLength(10))),
  /** Default markup of its markup-priced variants. */
  markup: z.optional(z.nullable(markup)),
  /** The merchant's own product reference, unique in the client's catalog (bulk import matches on it). */
  ref: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]{0,99}$/, 'letters, digits and . _ - / (at most 100)'))),
};

export const offeringCreate = z
  .strictObject({
    kind: z._default(z.enum(OFFERING_KINDS), 'item'),
    ...offeringFields,
    status: z._default(z.enum(['draft', 'published']), 'draft'),
    variants: z.optional(z.array(variantCreate).check(z.maxLength(50))),
  })
  // What each kind takes, as the service refuses it (./offerings.ts): a plan its amount and
  // interval and no variants, an item (the default) neither amount nor interval.
  .check(
    z.meta({
      oneOf: [
        { properties: { kind: { enum: ['plan'] }, variants: { maxItems: 0 } }, required: ['kind', 'amount', 'interval'] },
        { properties: { kind: { enum: ['item'] } }, not: { anyOf: [{ required: ['amount'] }, { required: ['interval'] }] } },
      ],
    }),
  );
export type OfferingCreate = z.infer<typeof offeringCreate>;

export const offeringPatch = someField(
  z.strictObject({ ...offeringFields, title: z.optional(offeringFields.title), status: z.optional(z.enum(OFFERING_STATUSES)) }),
  'name at least one field',
);
export type OfferingPatch = z.infer<typeof offeringPatch>;

export const offering = z
  .object({
    id: uuid,
    client_id: uuid,
    kind: z.enum(OFFERING_KINDS),
    ref: z.nullable(z.string()),
    title: z.string(),
    description: z.string(),
    image_url: z.nullable(z.string()),
    /** A plan's price; an item's lowest live variant price (null without one). */
    amount: z.nullable(z.int()),
    interval: z.nullable(z.enum(INTERVALS)),
    metadata: z.record(z.string(), z.string()),
    /** The commission that applies: the offering's override, else the client's. */
    commission_bps: z.int(),
    category_id: z.nullable(uuid),
    options: z.array(z.string()),
    markup: z.nullable(markup),
    /** Live (active) variants, by position. */
    variants: z.array(variant),
    status: z.enum(OFFERING_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Offering' }));

export const offeringListQuery = z.strictObject({ status: z.optional(z.enum(OFFERING_STATUSES)), ...createdRange, cursor, limit: pageLimit(20, 50) });

// ---------------------------------------------------------------------------------------------
// Bulk import

export const IMPORT_MAX_BYTES = 256 * 1024;
export const IMPORT_MAX_ROWS = 100;

export const importRequest = z.strictObject({
  format: z.enum(['json', 'csv']),
  /** json: `{products: [...]}`; csv: the file's text (header line first). */
  content: z.union([
    z.string().check(z.maxLength(IMPORT_MAX_BYTES)),
    // Read row by row later (./import-files.ts); a variant's percent markup is decimal there too.
    withDecimalPaths(
      z
        .record(z.string(), z.unknown())
        .check(z.describe('The file as JSON, `{products: [...]}`. Its numbers are integers, but a percent markup value (`products[].variants[].markup.value`), which takes at most 2 decimal places.')),
      [{ path: 'products[].variants[].markup.value', places: 2 }],
    ),
  ]),
  /** Validate and report what would change; write nothing. */
  dry_run: z._default(z.boolean(), false),
});

const importedProduct = z.object({ ref: z.string(), offering_id: z.nullable(uuid) }).check(z.meta({ id: 'ImportedProduct' }));

export const catalogImport = z
  .object({
    id: uuid,
    client_id: uuid,
    format: z.enum(['json', 'csv']),
    dry_run: z.boolean(),
    /** Products and variants read from the file. */
    products: z.int(),
    rows: z.int(),
    /** Products by what the import did to them (a dry run's new products have no id yet). */
    created: z.array(importedProduct),
    updated: z.array(importedProduct),
    archived: z.array(importedProduct),
    unchanged: z.array(importedProduct),
    created_at: timestamp,
  })
  .check(z.meta({ id: 'CatalogImport' }));
