import type { TransactItem } from '../../aws/dynamodb';
import { anything, codec, nullable, str } from '../../kernel/codec';
import { walletKeys } from '../keys';
import type { Actor, StoreDeps } from '../deps';
import { putItem, queryPage, type Page, type CreatedRange } from '../../aws/store';

/**
 * The audit log: append-only records of changes, one partition per tenant (`PLATFORM` for changes
 * that belong to no tenant), newest first by UUIDv7 id. A change that is a WalletTable write puts
 * its record in the same TransactWriteItems (`auditItem`), so the change and its record commit
 * together or not at all; `recordAudit` is for changes made elsewhere (a ledger call, a key
 * issued by another service).
 */

export const PLATFORM_AUDIT_SCOPE = 'PLATFORM';

export interface AuditInput {
  /** The tenant the change belongs to; null for platform-level changes. */
  tenantId: string | null;
  actor: Actor;
  /** `<resource>.<verb>`, e.g. `tenant.create`, `fee_plan.set`, `api_key.revoke`. */
  action: string;
  target: { type: string; id: string };
  before?: unknown;
  after?: unknown;
  requestId: string;
}

export interface AuditRecord {
  id: string;
  actor: { type: string; id: string };
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
  request_id: string;
  created_at: string;
}

/** The Put that appends one record; put it in the TransactWriteItems of the change it records. */
export function auditItem(deps: Pick<StoreDeps, 'table' | 'clock' | 'ids'>, input: AuditInput): TransactItem {
  return { Put: { TableName: deps.table, Item: auditRow(deps, input), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Appends one record on its own. Use `auditItem` instead wherever the change is a WalletTable write. */
export async function recordAudit(deps: StoreDeps, input: AuditInput): Promise<AuditRecord> {
  const item = auditRow(deps, input);
  await putItem(deps, item, { condition: 'attribute_not_exists(pk)' });
  return toAuditRecord(item);
}

/** A tenant's records (or the platform's, with `null`), newest first. Refuses: invalid_request (cursor). */
export async function listAuditLog(deps: StoreDeps, tenantId: string | null, page: { cursor?: string; limit: number } & CreatedRange): Promise<Page<AuditRecord>> {
  const result = await queryPage(deps, { partition: walletKeys.auditPartition(tenantId ?? PLATFORM_AUDIT_SCOPE), cursor: page.cursor, created: page, limit: page.limit });
  return { data: result.items.map(toAuditRecord), next_cursor: result.next_cursor };
}

function auditRow(deps: Pick<StoreDeps, 'clock' | 'ids'>, input: AuditInput): Record<string, unknown> {
  const id = deps.ids();
  return {
    ...walletKeys.audit(input.tenantId ?? PLATFORM_AUDIT_SCOPE, id),
    entity: 'audit',
    id,
    tenant_id: input.tenantId,
    actor_type: input.actor.kind,
    actor_id: input.actor.id,
    action: input.action,
    target_type: input.target.type,
    target_id: input.target.id,
    // A plain JSON copy: what was recorded cannot change with the caller's objects, and holds no undefined.
    before: plain(input.before),
    after: plain(input.after),
    request_id: input.requestId,
    created_at: deps.clock.now().toISOString(),
  };
}

const plain = (value: unknown): unknown => (value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown));

/** An audit row as stored: actor and target flattened, before and after as recorded (null when absent). */
interface AuditRow {
  id: string;
  actor_type: string;
  actor_id: string;
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: unknown;
  request_id: string;
  created_at: string;
}

const decodeAuditRow = codec<AuditRow>('audit', {
  id: str,
  actor_type: str,
  actor_id: str,
  action: str,
  target_type: str,
  target_id: str,
  before: nullable(anything),
  after: nullable(anything),
  request_id: str,
  created_at: str,
});

function toAuditRecord(item: Record<string, unknown>): AuditRecord {
  const row = decodeAuditRow(item);
  return {
    id: row.id,
    actor: { type: row.actor_type, id: row.actor_id },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    before: row.before,
    after: row.after,
    request_id: row.request_id,
    created_at: row.created_at,
  };
}
