import { ConditionsFailed, getItem, queryPage, transact, type CreatedRange } from '../../aws/store';
import type { Principal } from '../../http/principal';
import { bool, codec, nullable, orElse, str } from '../../kernel/codec';
import { AppError } from '../../kernel/errors';
import { auditItem } from '../tenancy/audit';
import type { StoreDeps } from '../deps';
import { walletKeys } from '../keys';
import { sendAuditRecord, type AccessRecorder } from '../access-records';

/**
 * Support access grants (spec part 4 item 16): a partner administrator lets one vendor support
 * engineer act on the tenant until a time, for a reason and a ticket. One live grant per engineer
 * and tenant, enforced by a marker item written with the grant in one transaction. While a grant
 * stands, the engineer's session for the tenant carries its id and every request is logged
 * against it (shared/wallet/auth/credentials.ts).
 */

export interface Grant {
  id: string;
  tenant_id: string;
  staff_id: string;
  reason: string;
  ticket_reference: string;
  created_by_type: string;
  created_by_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by_type: string | null;
  revoked_by_id: string | null;
}

/** The longest a grant may run: support access is for an incident, not a standing role. */
export const MAX_GRANT_DAYS = 30;


/**
 * Grants an engineer access to the principal's tenant.
 * Refuses: invalid_request (unknown engineer, expiry in the past or too far), support_access_already_active.
 */
export async function createGrant(
  deps: StoreDeps,
  principal: Principal,
  input: { staff_id: string; reason: string; ticket_reference: string; expires_at: string },
  requestId: string,
): Promise<Grant> {
  const tenantId = principal.tenantId!;
  const now = deps.clock.now();
  const expires = new Date(input.expires_at);
  if (expires.getTime() <= now.getTime() || expires.getTime() > now.getTime() + MAX_GRANT_DAYS * 86_400_000) {
    throw new AppError('invalid_request', `expires_at must be in the future and at most ${MAX_GRANT_DAYS} days away.`, {
      errors: [{ field: 'expires_at', message: 'unaccepted expiry' }],
    });
  }
  const engineer = await getItem(deps, walletKeys.staff(input.staff_id));
  if (!engineer || engineer.role !== 'vendor_support') {
    throw new AppError('invalid_request', 'staff_id names no vendor support engineer.', { errors: [{ field: 'staff_id', message: 'unknown engineer' }] });
  }
  const grant: Grant = {
    id: deps.ids(),
    tenant_id: tenantId,
    staff_id: input.staff_id,
    reason: input.reason,
    ticket_reference: input.ticket_reference,
    created_by_type: principal.kind,
    created_by_id: principal.id,
    created_at: now.toISOString(),
    expires_at: expires.toISOString(),
    revoked_at: null,
    revoked_by_type: null,
    revoked_by_id: null,
  };
  try {
    await transact(deps, [
      {
        Put: {
          TableName: deps.table,
          Item: { ...walletKeys.grant(grant.id), ...walletKeys.grantIndex(tenantId, grant.id), entity: 'support_grant', ...grant },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        // The marker: replaced only when the engineer's previous grant here expired or was revoked.
        Put: {
          TableName: deps.table,
          Item: { ...walletKeys.liveGrant(input.staff_id, tenantId), entity: 'live_grant', grant_id: grant.id, expires_at: grant.expires_at, revoked: false },
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now OR revoked = :true',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':true': true },
        },
      },
      auditItem(deps, { tenantId, actor: principal, action: 'support_access_grant.create', target: { type: 'support_access_grant', id: grant.id }, after: grant, requestId }),
    ]);
  } catch (error) {
    if (error instanceof ConditionsFailed && error.indexes.includes(1)) {
      throw new AppError('support_access_already_active', 'This engineer already holds a live grant for this tenant.');
    }
    throw error;
  }
  return grant;
}

/** Ends a grant now; revoking a revoked grant changes nothing. Refuses: not_found (also another tenant's grant). */
export async function revokeGrant(deps: StoreDeps, principal: Principal, grantId: string, requestId: string): Promise<Grant> {
  const grant = await getGrant(deps, principal.tenantId!, grantId);
  if (grant.revoked_at) return grant;
  const now = deps.clock.now().toISOString();
  const revoked: Grant = { ...grant, revoked_at: now, revoked_by_type: principal.kind, revoked_by_id: principal.id };
  const grantUpdate = {
    Update: {
      TableName: deps.table,
      Key: walletKeys.grant(grantId),
      UpdateExpression: 'SET revoked_at = :now, revoked_by_type = :type, revoked_by_id = :by',
      ConditionExpression: 'attribute_exists(pk) AND revoked_at = :null',
      ExpressionAttributeValues: { ':now': now, ':type': principal.kind, ':by': principal.id, ':null': null },
    },
  };
  const audit = auditItem(deps, { tenantId: grant.tenant_id, actor: principal, action: 'support_access_grant.revoke', target: { type: 'support_access_grant', id: grantId }, before: grant, after: revoked, requestId });
  const marker = {
    Update: {
      TableName: deps.table,
      Key: walletKeys.liveGrant(grant.staff_id, grant.tenant_id),
      UpdateExpression: 'SET revoked = :true',
      ConditionExpression: 'grant_id = :grant',
      ExpressionAttributeValues: { ':true': true, ':grant': grantId },
    },
  };
  try {
    await transact(deps, [grantUpdate, marker, audit]);
  } catch (error) {
    if (!(error instanceof ConditionsFailed)) throw error;
    const current = await getGrant(deps, principal.tenantId!, grantId);
    if (current.revoked_at) return current;
    // The marker already names a newer grant (this one had expired): revoke the grant alone.
    await transact(deps, [grantUpdate, audit]);
  }
  return revoked;
}

export async function getGrant(deps: StoreDeps, tenantId: string, grantId: string): Promise<Grant> {
  const item = await getItem(deps, walletKeys.grant(grantId));
  if (!item || item.tenant_id !== tenantId) throw new AppError('not_found', `No support access grant ${grantId}.`);
  return toGrant(item);
}

export async function listGrants(deps: StoreDeps, tenantId: string, cursor: string | undefined, limit: number, created: CreatedRange = {}): Promise<{ data: Grant[]; next_cursor: string | null }> {
  const page = await queryPage(deps, { index: 'gsi1', partition: walletKeys.tenantGrants(tenantId), cursor, created, limit });
  return { data: page.items.map(toGrant), next_cursor: page.next_cursor };
}

/** The engineer's live grant for the tenant, if one stands now (read on every request it covers). */
export async function liveGrant(deps: StoreDeps, staffId: string, tenantId: string): Promise<Grant | undefined> {
  const marker = await getItem(deps, walletKeys.liveGrant(staffId, tenantId));
  const live = marker && decodeLiveGrant(marker);
  if (!live || live.revoked || live.expires_at <= deps.clock.now().toISOString()) return undefined;
  const grant = await getGrant(deps, tenantId, live.grant_id);
  return grant.revoked_at ? undefined : grant;
}

const toGrant = codec<Grant>('support_grant', {
  id: str,
  tenant_id: str,
  staff_id: str,
  reason: str,
  ticket_reference: str,
  created_by_type: str,
  created_by_id: str,
  created_at: str,
  expires_at: str,
  revoked_at: nullable(str),
  revoked_by_type: nullable(str),
  revoked_by_id: nullable(str),
});

/** The marker of the engineer's one live grant for a tenant. */
const decodeLiveGrant = codec<{ grant_id: string; expires_at: string; revoked: boolean }>('live_grant', { grant_id: str, expires_at: str, revoked: orElse(bool, () => false) });

/**
 * One append-only access record per request made under a grant (spec item 16), refused ones
 * included: `grant_ended` when the grant no longer stood (the request was then refused). It is
 * queued, and written by the access-records worker (../access-records.ts); this returns once the
 * queue holds it. Refuses: service_unavailable when it cannot be queued.
 */
export async function recordGrantAccess(
  deps: Pick<StoreDeps, 'clock' | 'ids'> & { records: AccessRecorder },
  grant: Pick<Grant, 'id' | 'tenant_id'>,
  principal: Principal,
  operation: string,
  outcome: 'admitted' | 'grant_ended' = 'admitted',
): Promise<void> {
  await sendAuditRecord(deps.records, {
    kind: 'support_access',
    id: deps.ids(),
    grant_id: grant.id,
    tenant_id: grant.tenant_id,
    staff_id: principal.id,
    operation,
    outcome,
    at: deps.clock.now().toISOString(),
  });
}
