import { assertClientAuthority } from '../auth/credentials';
import type { Principal } from '../../http/principal';
import { AppError } from '../../kernel/errors';
import type { Owner } from './keys';

/**
 * The owner a webhook request acts for. Tenant endpoints: the principal's tenant (the route has
 * already admitted the principal kind and its scope). Merchant endpoints: authority over the
 * client (spec part 5 rule 3: an API key bound to it, or tenant staff holding clients:manage), and
 * a merchant key must also hold the webhook scope the operation needs. The client's existence is
 * not checked: the catalog that registers clients does not exist yet.
 * Refuses: not_client_member, insufficient_scope, tenant_not_found.
 */
export function ownerFor(principal: Principal, need: 'read' | 'manage', clientId?: string): Owner {
  if (!principal.tenantId) throw new AppError('tenant_not_found', 'This credential acts for no tenant.');
  if (clientId === undefined) return { tenantId: principal.tenantId };
  assertClientAuthority(principal, clientId);
  if (principal.kind === 'api_key') {
    const scopes = need === 'read' ? ['webhooks:read', 'webhooks:manage'] : ['webhooks:manage'];
    if (!scopes.some((scope) => principal.scopes.has(scope))) throw new AppError('insufficient_scope', `This operation needs one of the scopes: ${scopes.join(', ')}.`);
  }
  return { tenantId: principal.tenantId, clientId };
}
