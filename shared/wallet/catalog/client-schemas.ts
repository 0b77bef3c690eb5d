import * as z from '../../kernel/zod';
import { createdRange, cursor, pageLimit, timestamp, uuid } from '../../http/schemas';
import { CLIENT_STATUSES } from './fields';

/**
 * Request and response shapes of the catalog's clients (docs/catalog.md), apart from the offering
 * schemas (./schemas.ts) so a client function builds only these at import.
 */

export const slug = (max: number) => z.string().check(z.regex(new RegExp(`^[a-z0-9][a-z0-9-]{0,${max - 1}}$`), 'lowercase letters, digits and hyphens'));
export const httpsUrl = z.url({ protocol: /^https$/ }).check(z.maxLength(2048));
export const text = (max: number) => z.string().check(z.maxLength(max));

// ---------------------------------------------------------------------------------------------
// Clients

export const clientCreate = z.strictObject({
  merchant_id: uuid,
  org_alias: slug(63),
  display_name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  category: slug(63),
  description: z.optional(text(2000)),
  logo_url: z.optional(httpsUrl),
  /** Default: the tenant's commission rule's bps. */
  commission_bps: z.optional(z.int().check(z.minimum(0), z.maximum(10_000))),
});

export const client = z
  .object({
    id: uuid,
    merchant_id: uuid,
    org_alias: z.string(),
    display_name: z.string(),
    category: z.string(),
    description: z.string(),
    logo_url: z.nullable(z.string()),
    commission_bps: z.int(),
    status: z.enum(CLIENT_STATUSES),
    /** Hidden from Explore by platform moderation. */
    hidden: z.boolean(),
    approved_at: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .check(z.meta({ id: 'Client' }));

export const clientListQuery = z.strictObject({ status: z.optional(z.enum(CLIENT_STATUSES)), ...createdRange, cursor, limit: pageLimit() });

export const memberCreate = z.strictObject({ staff_id: uuid });
export const member = z.object({ client_id: uuid, staff_id: uuid, created_at: timestamp }).check(z.meta({ id: 'ClientMember' }));
