/**
 * Every caller, whatever its credential, is resolved into one Principal by the credential hook
 * before a handler runs. Handlers and services decide on the principal, never on the raw header.
 */

export type PrincipalKind =
  /** A tenant API key (`sk_{env}_{key-id}_{secret}`), acting for the whole tenant. */
  | 'api_key'
  /** A wallet user token minted with an API key, acting for exactly one user. */
  | 'user_token'
  /** An identity provider's access token used directly as a wallet credential. */
  | 'idp_user'
  | 'platform_staff'
  | 'vendor_support'
  | 'partner_admin'
  | 'tenant_staff'
  /** An OIDC client-credentials token of a registered ledger consumer (ledger API only). */
  | 'ledger_consumer';

export interface Principal {
  kind: PrincipalKind;
  /** The credential's own id: key id, token subject, staff id or consumer id. */
  id: string;
  scopes: ReadonlySet<string>;
  tenantId?: string;
  /** The one user a user token or IdP token acts for. */
  userId?: string;
  /** The client (merchant) an API key is bound to. */
  clientId?: string;
  /** The ledger consumer a client-credentials token belongs to. */
  consumerId?: string;
  /** A vendor support engineer acting on a tenant under this support access grant. */
  grantId?: string;
  /**
   * A credential of the sandbox environment: a sandbox API key, or a user token one minted. Every
   * other credential is live (spec part 5: the env segment is checked, but partitions no data).
   */
  sandbox?: boolean;
}

export const STAFF_KINDS: readonly PrincipalKind[] = ['platform_staff', 'vendor_support', 'partner_admin', 'tenant_staff'];

export const hasAnyScope = (principal: Principal, scopes: readonly string[]): boolean =>
  scopes.length === 0 || scopes.some((scope) => principal.scopes.has(scope));
