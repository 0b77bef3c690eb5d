import type * as z from '../../kernel/zod';
import { queryPage, type Page } from '../../aws/store';
import { str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import type { StoreDeps } from '../deps';
import { isExplorable, readClient, toClientRecord, type ClientRecord } from './clients';
import { catalogKeys } from './keys';
import { readOffering, shopperOffering } from './records';
import type { exploreClient, exploreClientDetail, exploreListQuery, exploreOffering } from './explore-schemas';

/**
 * Explore: the shopper's view of the tenant's ecosystem (spec part 4 item 7). Only active clients
 * that platform moderation has not hidden, only published offerings, and only the shopper view:
 * every field spec part 2 lists but cost, markup and the stock counts. Anything else answers as if it did not exist.
 */

/** The most offerings one client's Explore page carries (newest first). */
export const EXPLORE_OFFERINGS_MAX = 100;

/** The shopper view of a client: every field of spec part 2 (`hidden` is moderation's, and always false here). */
const shopperClient = (record: ClientRecord): z.infer<typeof exploreClient> => ({
  id: record.id,
  merchant_id: record.merchant_id,
  org_alias: record.org_alias,
  display_name: record.display_name,
  category: record.category,
  description: record.description,
  logo_url: record.logo_url,
  commission_bps: record.commission_bps,
  status: record.status,
  approved_at: record.approved_at,
  created_at: record.created_at,
});

/** A client shoppers may see. Refuses: client_not_found (unknown, of another tenant, inactive or hidden). */
async function explorableClient(deps: StoreDeps, tenantId: string, clientId: string): Promise<ClientRecord> {
  const record = await readClient(deps, tenantId, clientId);
  if (!isExplorable(record)) throw new AppError('client_not_found', `No client ${clientId}.`);
  return record;
}

/** Active, visible clients with at least one published offering, newest first; by category or a free-text query. */
export async function exploreClients(deps: StoreDeps, tenantId: string, query: z.infer<typeof exploreListQuery>): Promise<Page<z.infer<typeof exploreClient>>> {
  const conditions = ['published_count > :zero'];
  const values: Record<string, unknown> = { ':zero': 0 };
  if (query.category) {
    conditions.push('#category = :category');
    values[':category'] = query.category;
  }
  if (query.q) {
    conditions.push('contains(search_text, :q)');
    values[':q'] = query.q.toLowerCase();
  }
  const page = await queryPage(deps, {
    index: 'gsi2',
    partition: catalogKeys.exploreClients(tenantId),
    cursor: query.cursor,
    limit: query.limit,
    filter: { expression: conditions.join(' AND '), values, ...(query.category ? { names: { '#category': 'category' } } : {}) },
    scanBudget: 1_000,
  });
  return { data: page.items.map((item) => shopperClient(toClientRecord(item))), next_cursor: page.next_cursor };
}

/** A client and its published offerings (spec part 4 item 7). Refuses: client_not_found. */
export async function exploreClientDetails(deps: StoreDeps, tenantId: string, clientId: string): Promise<z.infer<typeof exploreClientDetail>> {
  const record = await explorableClient(deps, tenantId, clientId);
  const page = await queryPage(deps, { index: 'gsi2', partition: catalogKeys.publishedOfferings(clientId), cursor: undefined, limit: EXPLORE_OFFERINGS_MAX });
  const offerings = await Promise.all(page.items.map((item) => readOffering(deps, str(item.id, 'offering', 'id'))));
  return {
    client: shopperClient(record),
    offerings: offerings.filter((found) => found !== undefined && found.offering.status === 'published').map((found) => shopperOffering(found!, record)),
  };
}

/** One published offering of a visible client. Refuses: offering_not_found, client_not_found (its client is hidden or inactive). */
export async function exploreOfferingById(deps: StoreDeps, tenantId: string, offeringId: string): Promise<z.infer<typeof exploreOffering>> {
  const found = await readOffering(deps, offeringId);
  if (!found || found.offering.tenant_id !== tenantId || found.offering.status !== 'published') throw new AppError('offering_not_found', `No offering ${offeringId}.`);
  const client = await explorableClient(deps, tenantId, found.offering.client_id);
  return shopperOffering(found, client);
}
