import * as z from 'zod';
import { cursor, pageLimit, uuid } from '../../http/schemas';
import { slug } from './client-schemas';
import { INTERVALS, OFFERING_KINDS } from './fields';

/**
 * The shopper's views of the catalog (docs/catalog.md, Explore), apart from the merchant's
 * (./schemas.ts) so an Explore function builds only these at import.
 */

// ---------------------------------------------------------------------------------------------
// Explore: the shopper views (no cost_amount, markup, on_hand, reserved or available)

export const exploreClient = z
  .object({ id: uuid, org_alias: z.string(), display_name: z.string(), category: z.string(), description: z.string(), logo_url: z.string().nullable() })
  .meta({ id: 'ExploreClient' });

export const exploreVariant = z
  .object({
    id: uuid,
    offering_id: uuid,
    sku: z.string(),
    option_values: z.array(z.string()),
    position: z.number().int(),
    amount: z.number().int(),
    image_url: z.string().nullable(),
    inventory: z.object({ track_inventory: z.boolean(), in_stock: z.boolean(), low_stock: z.boolean(), allow_backorder: z.boolean() }),
  })
  .meta({ id: 'ExploreVariant' });

export const exploreOffering = z
  .object({
    id: uuid,
    client_id: uuid,
    kind: z.enum(OFFERING_KINDS),
    title: z.string(),
    description: z.string(),
    image_url: z.string().nullable(),
    amount: z.number().int().nullable(),
    interval: z.enum(INTERVALS).nullable(),
    category_id: uuid.nullable(),
    options: z.array(z.string()),
    variants: z.array(exploreVariant),
  })
  .meta({ id: 'ExploreOffering' });

export const exploreClientDetail = z.object({ client: exploreClient, offerings: z.array(exploreOffering) }).meta({ id: 'ExploreClientDetail' });

export const exploreListQuery = z
  .object({ category: slug(63).optional(), q: z.string().trim().min(1).max(100).optional(), cursor, limit: pageLimit() })
  .strict();
