import * as z from 'zod';
import { createdRange, cursor, pageLimit, timestamp, uuid } from '../../http/schemas';
import { CLIENT_STATUSES } from './fields';

/**
 * Request and response shapes of the catalog's clients (docs/catalog.md), apart from the offering
 * schemas (./schemas.ts) so a client function builds only these at import.
 */

export const slug = (max: number) => z.string().regex(new RegExp(`^[a-z0-9][a-z0-9-]{0,${max - 1}}$`), 'lowercase letters, digits and hyphens');
export const httpsUrl = z.url({ protocol: /^https$/ }).max(2048);
export const text = (max: number) => z.string().max(max);

// ---------------------------------------------------------------------------------------------
// Clients

export const clientCreate = z
  .object({
    merchant_id: uuid,
    org_alias: slug(63),
    display_name: z.string().trim().min(1).max(200),
    category: slug(63),
    description: text(2000).optional(),
    logo_url: httpsUrl.optional(),
    /** Default: the tenant's commission rule's bps. */
    commission_bps: z.number().int().min(0).max(10_000).optional(),
  })
  .strict();

export const client = z
  .object({
    id: uuid,
    merchant_id: uuid,
    org_alias: z.string(),
    display_name: z.string(),
    category: z.string(),
    description: z.string(),
    logo_url: z.string().nullable(),
    commission_bps: z.number().int(),
    status: z.enum(CLIENT_STATUSES),
    /** Hidden from Explore by platform moderation. */
    hidden: z.boolean(),
    approved_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Client' });

export const clientListQuery = z.object({ status: z.enum(CLIENT_STATUSES).optional(), ...createdRange, cursor, limit: pageLimit() }).strict();

export const memberCreate = z.object({ staff_id: uuid }).strict();
export const member = z.object({ client_id: uuid, staff_id: uuid, created_at: timestamp }).meta({ id: 'ClientMember' });
