import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import { authorizeClient } from '../catalog/clients';
import type { StoreDeps } from '../deps';
import type { Owner } from './keys';

/** The tenant a webhook request acts for (the route has already admitted the principal kind and its scope). Refuses: tenant_not_found. */
export function ownerFor(principal: Principal): Owner {
  if (!principal.tenantId) throw new AppError('tenant_not_found', 'This credential acts for no tenant.');
  return { tenantId: principal.tenantId };
}

/**
 * The merchant owner of a client's webhook request: the client must exist in the caller's tenant
 * and the caller must have authority over it (spec part 5 rule 3); a merchant key must also hold
 * the webhook scope the operation needs. Refuses: client_not_found, not_client_member,
 * insufficient_scope.
 */
export async function clientOwnerFor(deps: StoreDeps, principal: Principal, need: 'read' | 'manage', clientId: string): Promise<Owner> {
  const client = await authorizeClient(deps, principal, clientId);
  if (principal.kind === 'api_key') {
    const scopes = need === 'read' ? ['webhooks:read', 'webhooks:manage'] : ['webhooks:manage'];
    if (!scopes.some((scope) => principal.scopes.has(scope))) throw new AppError('insufficient_scope', `This operation needs one of the scopes: ${scopes.join(', ')}.`);
  }
  return { tenantId: client.tenant_id, clientId };
}
