import { AppError } from '../../kernel/errors';
import { recordCrossTenantRead } from './access-log';
import { listAuditLog, type AuditRecord } from './audit';
import type { Actor, StoreDeps } from '../deps';
import type { Page, CreatedRange } from '../../aws/store';
import { getTenantRecord } from './tenants';

/** Who reads the audit log: a tenant credential reads its tenant's; platform staff name one or read the platform's. */
export interface AuditReader extends Actor {
  tenantId?: string;
}

/**
 * The audit log a reader may see, newest first. A tenant credential reads its own tenant's (naming
 * another tenant looks like a missing one). Platform staff read a tenant's with `tenant_id`
 * (logged as a cross-tenant read), else the platform's own records.
 * Refuses: tenant_not_found, invalid_request (cursor).
 */
export async function readAuditLog(
  deps: StoreDeps,
  reader: AuditReader,
  query: { tenant_id?: string; cursor?: string; limit: number } & CreatedRange,
  requestId: string,
): Promise<Page<AuditRecord>> {
  if (reader.tenantId !== undefined) {
    if (query.tenant_id !== undefined && query.tenant_id !== reader.tenantId) throw new AppError('tenant_not_found', `No tenant ${query.tenant_id}.`);
    return listAuditLog(deps, reader.tenantId, query);
  }
  if (query.tenant_id === undefined) return listAuditLog(deps, null, query);
  await getTenantRecord(deps, query.tenant_id);
  const page = await listAuditLog(deps, query.tenant_id, query);
  await recordCrossTenantRead(deps, {
    actor: reader,
    operation: 'listAuditLog',
    filters: { tenant_id: query.tenant_id, cursor: query.cursor, limit: query.limit },
    count: page.data.length,
    requestId,
  });
  return page;
}
