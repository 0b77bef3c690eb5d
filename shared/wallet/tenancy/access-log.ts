import { walletKeys } from '../keys';
import type { Actor, StoreDeps } from '../deps';
import { queryPage, type Page } from '../../aws/store';
import { queuedAccessRecorder, sendAuditRecord } from '../access-records';

/**
 * The cross-tenant access log (spec part 4 item 19): every platform read of tenants' data leaves
 * who, when, what and with which filters, and how many records it returned. Append-only, one
 * partition per UTC day, kept without expiry (PCI DSS 10.5.1 asks for a year at least).
 *
 * The entry is queued before the read is answered and written by the access-records worker
 * (../access-records.ts), so a read's function holds no write grant; a read whose entry cannot be
 * queued is refused (503 service_unavailable) instead of answered unlogged.
 */

export interface AccessLogEntry {
  id: string;
  actor: { type: string; id: string };
  operation: string;
  filters: Record<string, string | number | null>;
  count: number;
  request_id: string;
  created_at: string;
}

export async function recordCrossTenantRead(
  deps: StoreDeps,
  read: { actor: Actor; operation: string; filters: Record<string, string | number | null | undefined>; count: number; requestId: string },
): Promise<AccessLogEntry> {
  const now = deps.clock.now();
  const entry: AccessLogEntry = {
    id: deps.ids(),
    actor: { type: read.actor.kind, id: read.actor.id },
    operation: read.operation,
    filters: Object.fromEntries(Object.entries(read.filters).map(([name, value]) => [name, value ?? null])),
    count: read.count,
    request_id: read.requestId,
    created_at: now.toISOString(),
  };
  await sendAuditRecord(queuedAccessRecorder, { kind: 'cross_tenant_read', ...entry });
  return entry;
}

/** One UTC day of the log, newest first. */
export async function listAccessLog(deps: StoreDeps, day: string, page: { cursor?: string; limit: number }): Promise<Page<AccessLogEntry>> {
  const result = await queryPage(deps, { partition: walletKeys.accessLog(day, '').pk, cursor: page.cursor, limit: page.limit });
  return {
    data: result.items.map((item) => ({
      id: String(item.id),
      actor: item.actor as AccessLogEntry['actor'],
      operation: String(item.operation),
      filters: item.filters as AccessLogEntry['filters'],
      count: Number(item.count),
      request_id: String(item.request_id),
      created_at: String(item.created_at),
    })),
    next_cursor: result.next_cursor,
  };
}

/** `2026-11-21`: the partition of a moment. */
export const dayOf = (moment: Date): string => moment.toISOString().slice(0, 10);
