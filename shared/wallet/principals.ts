import type { Principal, PrincipalKind } from '../http/principal';
import { AppError } from '../kernel/errors';

/**
 * The tenant a tenant-bound principal acts for. Platform staff name the tenant explicitly where a
 * route allows it. Refuses: tenant_not_found when none can be determined.
 */
export function tenantOf(principal: Principal, explicit?: string): string {
  if (principal.tenantId) {
    // A tenant credential naming another tenant sees it as missing, never as forbidden.
    if (explicit && explicit !== principal.tenantId) throw new AppError('tenant_not_found', `No tenant ${explicit}.`);
    return principal.tenantId;
  }
  if (explicit) return explicit;
  throw new AppError('invalid_request', 'tenant_id is required for a platform credential.');
}

/** A user token or IdP token acts only on its own user; anything else looks missing. */
export function assertSelf(principal: Principal, userId: string): void {
  if (principal.userId && principal.userId !== userId) throw new AppError('user_not_found', `No user ${userId}.`);
}

/** Whose objects a principal sees: a user or IdP token its own user's, a key bound to a client that client's, else the whole tenant's. */
export interface OwnerScope {
  tenantId: string;
  userId?: string;
  clientId?: string;
}

/** Refuses: tenant_not_found (a credential of no tenant). */
export function ownerScopeOf(principal: Principal): OwnerScope {
  if (!principal.tenantId) throw new AppError('tenant_not_found', 'This credential acts for no tenant.');
  return { tenantId: principal.tenantId, ...(principal.userId ? { userId: principal.userId } : {}), ...(principal.clientId ? { clientId: principal.clientId } : {}) };
}

/**
 * Sagas record who started them. A processor or a payout rail holds no wallet credential, so it is
 * recorded under its own kind with no scopes; nothing reads a saga's principal back as authority.
 */
export const outsidePrincipal = (id: string, tenantId: string): Principal => ({
  kind: 'processor' as string as PrincipalKind,
  id,
  tenantId,
  scopes: new Set(),
});
