import { msOfId, walletKeys } from '../keys';
import type { Actor, StoreDeps } from '../deps';
import { queryRange, type Item, type Page } from '../../aws/store';
import { queuedAccessRecorder, sendAuditRecord } from '../access-records';
import { mergedPage } from '../../aws/merged-pages';
import { decodeCursor, encodeCursor, unknownCursor } from '../../http/cursor';
import { codec, int, mapOf, nullable, num, obj, opt, str, StoredItemInvalid, type Reader } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';

/**
 * The access log: every platform read of tenants' data (spec part 4 item 19: who, when, what,
 * with which filters, how many records) and every request a vendor support engineer makes under
 * a grant (item 16; written at authentication, shared/wallet/console/grants.ts). Append-only,
 * kept without expiry (PCI DSS 10.5.1 asks for a year at least). Both kinds share the keys of
 * `walletKeys.accessLogEntry`, and this module reads them through those keys only, so the
 * readers do not depend on where or how an entry is written. Entries are queued before the request
 * is answered and written by the access-records worker (../access-records.ts), so a read's function
 * holds no write grant; a read whose entry cannot be queued is refused (503) instead of answered unlogged.
 */

export type AccessLogKind = 'cross_tenant_read' | 'support_access';

export interface AccessLogEntry {
  id: string;
  kind: AccessLogKind;
  actor: { type: string; id: string };
  /** The tenant read or acted on; null for a read across every tenant. */
  tenant_id: string | null;
  /** The support access grant a support request was made under. */
  grant_id: string | null;
  /** The route's operation id. */
  operation: string;
  /** `grant_ended`: a support request made after its grant ended, refused. Cross-tenant reads are logged once answered. */
  outcome: 'admitted' | 'grant_ended';
  /** A cross-tenant read's filters; null for support requests. */
  filters: Record<string, string | number | null> | null;
  /** Records a cross-tenant read returned; null for support requests. */
  count: number | null;
  request_id: string | null;
  created_at: string;
}

export async function recordCrossTenantRead(
  deps: StoreDeps,
  read: { actor: Actor; operation: string; filters: Record<string, string | number | null | undefined>; count: number; requestId: string },
): Promise<AccessLogEntry> {
  const filters = Object.fromEntries(Object.entries(read.filters).map(([name, value]) => [name, value ?? null]));
  const tenantId = typeof filters.tenant_id === 'string' ? filters.tenant_id : null;
  const entry: AccessLogEntry = {
    id: deps.ids(),
    kind: 'cross_tenant_read',
    actor: { type: read.actor.kind, id: read.actor.id },
    tenant_id: tenantId,
    grant_id: null,
    operation: read.operation,
    outcome: 'admitted',
    filters,
    count: read.count,
    request_id: read.requestId,
    created_at: deps.clock.now().toISOString(),
  };
  await sendAuditRecord(queuedAccessRecorder, {
    kind: 'cross_tenant_read',
    id: entry.id,
    actor: entry.actor,
    operation: entry.operation,
    filters,
    count: read.count,
    request_id: read.requestId,
    created_at: entry.created_at,
  });
  return entry;
}

/** A support request's entry as stored (../access-records.ts): its engineer is `staff_id`, its time `at`. */
interface SupportAccessRow {
  id: string;
  staff_id: string;
  tenant_id: string | null;
  grant_id: string | null;
  operation: string;
  outcome?: string;
  request_id: string | null;
  at?: string;
  created_at?: string;
}

const decodeSupportAccess = codec<SupportAccessRow>('support_access', {
  id: str,
  staff_id: str,
  tenant_id: nullable(str),
  grant_id: nullable(str),
  operation: str,
  outcome: opt(str),
  request_id: nullable(str),
  at: opt(str),
  created_at: opt(str),
});

/** A filter's value: a string, a number (a page limit) or null. */
const filterValue: Reader<string | number | null> = (value, entity, field) => (typeof value === 'number' ? num(value, entity, field) : nullable(str)(value, entity, field));

type CrossTenantReadRow = Omit<AccessLogEntry, 'kind' | 'grant_id' | 'outcome' | 'tenant_id' | 'filters' | 'count'> & {
  tenant_id?: string | null;
  filters: Record<string, string | number | null>;
  count: number;
};

const decodeCrossTenantRead = codec<CrossTenantReadRow>('access_log', {
  id: str,
  actor: obj<AccessLogEntry['actor']>({ type: str, id: str }),
  tenant_id: opt(str),
  operation: str,
  filters: (value, entity, field) => (value === undefined || value === null ? {} : mapOf(filterValue)(value, entity, field)),
  count: int,
  request_id: nullable(str),
  created_at: str,
});

/** An entry as read, whichever kind wrote it. */
export function accessLogEntryOf(item: Item): AccessLogEntry {
  if (item.entity === 'support_access') {
    const row = decodeSupportAccess(item);
    const createdAt = row.at ?? row.created_at;
    if (createdAt === undefined) throw new StoredItemInvalid('support_access', 'at', 'a string', undefined);
    return {
      id: row.id,
      kind: 'support_access',
      actor: { type: 'vendor_support', id: row.staff_id },
      tenant_id: row.tenant_id,
      grant_id: row.grant_id,
      operation: row.operation,
      outcome: row.outcome === 'grant_ended' ? 'grant_ended' : 'admitted',
      filters: null,
      count: null,
      request_id: row.request_id,
      created_at: createdAt,
    };
  }
  const row = decodeCrossTenantRead(item);
  return {
    id: row.id,
    kind: 'cross_tenant_read',
    actor: row.actor,
    tenant_id: row.tenant_id ?? (typeof row.filters.tenant_id === 'string' ? row.filters.tenant_id : null),
    grant_id: null,
    operation: row.operation,
    outcome: 'admitted',
    filters: row.filters,
    count: row.count,
    request_id: row.request_id,
    created_at: row.created_at,
  };
}

// ---------------------------------------------------------------------------------------------
// The platform's listing

/** Without `since`, a listing reaches this far back from `until` (name `since` to go further). */
export const ACCESS_LOG_DEFAULT_DAYS = 90;
/** Day partitions one unfiltered page reads at most; a page that stops there is short and has a cursor. */
const MAX_DAYS_PER_PAGE = 31;
const DAY_MS = 86_400_000;

export interface AccessLogQuery {
  tenant_id?: string;
  actor_id?: string;
  grant_id?: string;
  /** Inclusive. */
  since?: string;
  /** Exclusive. */
  until?: string;
  cursor?: string;
  limit: number;
}

/**
 * The access log newest first (by entry id, so by when it was written), filtered by tenant (its
 * entries and reads across every tenant), actor, grant and time. A grant, an actor or a tenant is
 * read from its index, any other filter applied to it; without one, the days are read from
 * `until` back to `since`. Refuses: invalid_request (since not before until, a cursor of another listing).
 */
export async function listAccessLog(deps: StoreDeps, query: AccessLogQuery): Promise<Page<AccessLogEntry>> {
  const nowMs = msOfId(deps.ids()); // entries sort by their UUIDv7 ids: the id clock's now is the newest there can be
  const untilMs = query.until === undefined ? undefined : Date.parse(query.until);
  const sinceMs = query.since === undefined ? (untilMs ?? nowMs) - ACCESS_LOG_DEFAULT_DAYS * DAY_MS : Date.parse(query.since);
  if (untilMs !== undefined && sinceMs >= untilMs) {
    throw new AppError('invalid_request', 'since must be before until.', { errors: [{ field: 'query.since', message: 'not before until' }] });
  }
  // Sort key bounds from times: a UUIDv7 starts with its milliseconds, so the prefix of a time
  // sorts before every id of that millisecond: `from` includes `since`, `to` excludes `until`.
  const from = idPrefixOf(sinceMs);
  const to = untilMs === undefined ? 'g' : idPrefixOf(untilMs);

  if (!query.grant_id && !query.actor_id && !query.tenant_id) {
    return dayWalk(deps, { from, to, firstDay: dayOfMs(untilMs === undefined ? nowMs : untilMs - 1), lastDay: dayOfMs(sinceMs) }, query);
  }
  const [index, partitions] = query.grant_id
    ? (['gsi3', [walletKeys.accessLogByGrant(query.grant_id)]] as const)
    : query.actor_id
      ? (['gsi2', [walletKeys.accessLogByActor(query.actor_id)]] as const)
      : (['gsi1', [walletKeys.accessLogByTenant(query.tenant_id!), walletKeys.accessLogByTenant(null)]] as const);
  const conditions: string[] = [];
  const values: Record<string, unknown> = {};
  if (query.tenant_id && index !== 'gsi1') {
    conditions.push('gsi1pk IN (:tenant, :everyTenant)');
    Object.assign(values, { ':tenant': walletKeys.accessLogByTenant(query.tenant_id), ':everyTenant': walletKeys.accessLogByTenant(null) });
  }
  if (query.actor_id && index !== 'gsi2') {
    conditions.push('gsi2pk = :actor');
    values[':actor'] = walletKeys.accessLogByActor(query.actor_id);
  }
  const page = await mergedPage(deps, {
    index,
    partitions,
    from,
    to,
    limit: query.limit,
    ...(conditions.length > 0 ? { filter: { expression: conditions.join(' AND '), values } } : {}),
    binding: { listing: `access_log:${index}`, owner: [query.tenant_id ?? '', query.actor_id ?? '', query.grant_id ?? ''].join('|') },
    cursor: query.cursor,
  });
  return { data: page.items.map(accessLogEntryOf), next_cursor: page.next_cursor };
}

/** Unfiltered: day partitions from `firstDay` back to `lastDay`, each newest first, consistently. */
async function dayWalk(
  deps: StoreDeps,
  range: { from: string; to: string; firstDay: string; lastDay: string },
  query: Pick<AccessLogQuery, 'cursor' | 'limit'>,
): Promise<Page<AccessLogEntry>> {
  const binding = { listing: 'access_log:days', owner: '*' };
  let day = range.firstDay;
  /** Read below this id in `day` (exclusive); absent: the whole day. */
  let below: string | undefined;
  if (query.cursor !== undefined) {
    const position = decodeCursor(query.cursor, binding, ['d', 's']);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(position.d!) || position.d! > range.firstDay || position.d! < range.lastDay) throw unknownCursor();
    [day, below] = [position.d!, position.s || undefined];
  }
  const items: Item[] = [];
  let reads = 0;
  for (;;) {
    if (day < range.lastDay) return { data: items.map(accessLogEntryOf), next_cursor: null };
    if (items.length >= query.limit || reads >= MAX_DAYS_PER_PAGE) {
      return { data: items.map(accessLogEntryOf), next_cursor: encodeCursor(binding, { d: day, s: below ?? '' }) };
    }
    const want = query.limit - items.length;
    const top = below ?? range.to;
    const result = await queryRange(deps, { partition: walletKeys.accessLogDay(day), from: range.from, to: top, limit: want + (below ? 1 : 0), consistent: true });
    reads += 1;
    const fresh = result.items.filter((item) => str(item.sk, 'access_log', 'sk') !== below);
    const taken = fresh.slice(0, want);
    items.push(...taken);
    if (result.stoppedAt === undefined && taken.length === fresh.length) {
      day = dayOfMs(Date.parse(`${day}T00:00:00Z`) - DAY_MS);
      below = undefined;
    } else {
      below = taken.length > 0 ? str(taken[taken.length - 1]!.sk, 'access_log', 'sk') : result.stoppedAt;
    }
  }
}

const dayOfMs = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `0190abcd-1234`: what every UUIDv7 of that millisecond starts with. */
function idPrefixOf(ms: number): string {
  const hex = Math.max(0, Math.min(ms, 2 ** 48 - 1)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
}

/** The platform's read of the log (GET /v1/platform/access_log): reading who read is itself logged. Refuses: as listAccessLog. */
export async function readAccessLog(deps: StoreDeps, query: AccessLogQuery, context: { actor: Actor; requestId: string }): Promise<Page<AccessLogEntry>> {
  const page = await listAccessLog(deps, query);
  const { tenant_id, actor_id, grant_id, since, until, cursor, limit } = query;
  await recordCrossTenantRead(deps, {
    actor: context.actor,
    operation: 'listAccessLog',
    filters: { tenant_id, actor_id, grant_id, since, until, cursor, limit },
    count: page.data.length,
    requestId: context.requestId,
  });
  return page;
}
