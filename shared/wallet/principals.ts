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

/*
 * What depends on the caller, for the routes' descriptions (shared/http/route.ts `description`):
 * no schema can say that a field is required of one credential and optional for another.
 */

/** A body field naming the user a request acts for, which a user or IdP token may leave out. */
export const actingUserField = (field: string): string =>
  `\`${field}\` depends on the caller: a tenant credential (an API key or tenant staff) must name the user; a user or IdP ` +
  `token acts for its own user, so it may leave \`${field}\` out, and naming another user answers 404 \`user_not_found\`.`;

/** A listing's `user_id` filter, which a user or IdP token cannot widen. */
export const userFilter =
  "`user_id` depends on the caller: a tenant credential lists the tenant's, or one user's with `user_id`; a user or IdP " +
  "token lists its own user's only, and naming another user answers 404 `user_not_found`.";

/** A body currency the schema cannot pin: the tenant's own (its ledger holds one commodity). */
export const tenantCurrency = "`currency` must be the tenant's currency; any other answers 400 `invalid_request`.";
