import { queryPage, type Page } from '../../aws/store';
import type { StoreDeps } from '../deps';
import { walletKeys } from '../keys';
import { accessLogEntryOf } from '../tenancy/access-log';
import { getGrant } from './grants';

/**
 * The requests a vendor support engineer made under a grant, for the tenant's partner
 * administrator (spec part 4 item 16: "every request of that engineer is recorded against it").
 * Read from the access log's grant index (`walletKeys.accessLogByGrant`), not from whatever
 * records them, so a change of the writer (a queue in front of it, say) keeps this reader.
 */

export interface GrantRequest {
  id: string;
  grant_id: string;
  staff_id: string;
  /** The route's operation id. */
  operation: string;
  /** `grant_ended`: made after the grant ended, and refused. */
  outcome: 'admitted' | 'grant_ended';
  created_at: string;
}

/** Newest first. Refuses: not_found (no such grant, or another tenant's). */
export async function listGrantRequests(deps: StoreDeps, tenantId: string, grantId: string, page: { cursor?: string; limit: number }): Promise<Page<GrantRequest>> {
  await getGrant(deps, tenantId, grantId);
  const result = await queryPage(deps, { index: 'gsi3', partition: walletKeys.accessLogByGrant(grantId), cursor: page.cursor, limit: page.limit });
  return {
    data: result.items.map(accessLogEntryOf).map((entry) => ({
      id: entry.id,
      grant_id: grantId,
      staff_id: entry.actor.id,
      operation: entry.operation,
      outcome: entry.outcome,
      created_at: entry.created_at,
    })),
    next_cursor: result.next_cursor,
  };
}
