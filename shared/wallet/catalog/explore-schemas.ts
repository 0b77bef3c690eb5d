import * as z from '../../kernel/zod';
import { cursor, pageLimit, timestamp, uuid } from '../../http/schemas';
import { slug } from './client-schemas';
import { CLIENT_STATUSES, INTERVALS, OFFERING_KINDS, OFFERING_STATUSES, PRICING_MODES, VARIANT_STATUSES } from './fields';

/**
 * The shopper's views of the catalog (docs/catalog.md, Explore), apart from the merchant's
 * (./schemas.ts) so an Explore function builds only these at import.
 */

// ---------------------------------------------------------------------------------------------
// Explore: the shopper views. Every field spec part 2 lists for a client, an offering and a variant
// but the merchant-only ones: cost_amount, markup (the variant's and the offering's default) and
// the stock counts (inventory's on_hand, reserved, available and low_stock_threshold).

export const exploreClient = z
  .object({
    id: uuid,
    merchant_id: uuid,
    org_alias: z.string(),
    display_name: z.string(),
    category: z.string(),
    description: z.string(),
    logo_url: z.nullable(z.string()),
    /** The marketplace commission on its sales (`add` mode charges it to the payer on top). */
    commission_bps: z.int(),
    /** Always `active`: Explore shows no other client. */
    status: z.enum(CLIENT_STATUSES),
    approved_at: z.nullable(timestamp),
    created_at: timestamp,
  })
  .check(z.meta({ id: 'ExploreClient' }));

export const exploreVariant = z
  .object({
    id: uuid,
    offering_id: uuid,
    sku: z.string(),
    barcode: z.nullable(z.string()),
    option_values: z.array(z.string()),
    position: z.int(),
    pricing_mode: z.enum(PRICING_MODES),
    amount: z.int(),
    image_url: z.nullable(z.string()),
    inventory: z.object({ track_inventory: z.boolean(), in_stock: z.boolean(), low_stock: z.boolean(), allow_backorder: z.boolean() }),
    /** Always `active`: retired variants are not shown. */
    status: z.enum(VARIANT_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'ExploreVariant' }));

export const exploreOffering = z
  .object({
    id: uuid,
    client_id: uuid,
    kind: z.enum(OFFERING_KINDS),
    title: z.string(),
    description: z.string(),
    image_url: z.nullable(z.string()),
    amount: z.nullable(z.int()),
    interval: z.nullable(z.enum(INTERVALS)),
    metadata: z.record(z.string(), z.string()),
    /** The commission that applies: the offering's override, else the client's. */
    commission_bps: z.int(),
    category_id: z.nullable(uuid),
    options: z.array(z.string()),
    variants: z.array(exploreVariant),
    /** Always `published`: drafts and archived offerings are hidden from Explore. */
    status: z.enum(OFFERING_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'ExploreOffering' }));

export const exploreClientDetail = z.object({ client: exploreClient, offerings: z.array(exploreOffering) }).check(z.meta({ id: 'ExploreClientDetail' }));

export const exploreListQuery = z.strictObject({
  category: z.optional(slug(63)),
  q: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
  cursor,
  limit: pageLimit(),
});
