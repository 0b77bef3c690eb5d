/**
 * Scopes are `resource:action` (spec part 5). The sets below are the platform's decisions where
 * the spec leaves them open (docs/decisions.md).
 */

/** Every scope a tenant credential (API key, tenant staff) may hold. */
export const TENANT_SCOPES = [
  'users:read',
  'users:write',
  'balances:read',
  'transfers:write',
  'topups:read',
  'topups:write',
  'payments:read',
  'payments:write',
  'refunds:write',
  'merchants:read',
  'merchants:write',
  'subscriptions:read',
  'subscriptions:write',
  'rewards:read',
  'rewards:manage',
  'rewards:convert',
  'webhooks:manage',
  'webhooks:read',
  'ledger:read',
  'audit:read',
  'fees:manage',
  'limits:manage',
  'credit:write',
  'catalog:read',
  'clients:onboard',
  'clients:manage',
] as const;

export const PLATFORM_SCOPES = ['platform:manage', 'platform:read'] as const;
export const PARTNER_ADMIN_SCOPES = ['support_access:manage'] as const;

/** An IdP access token is the wallet credential of one user; its scopes are fixed by the platform, not the token. */
export const IDP_USER_SCOPES = [
  'users:read',
  'balances:read',
  'transfers:write',
  'topups:read',
  'topups:write',
  'payments:read',
  'payments:write',
  'subscriptions:read',
  'subscriptions:write',
  'rewards:read',
  'rewards:convert',
  'catalog:read',
] as const;

export type Scope = (typeof TENANT_SCOPES)[number] | (typeof PLATFORM_SCOPES)[number] | (typeof PARTNER_ADMIN_SCOPES)[number];

export const ALL_SCOPES: readonly string[] = [...TENANT_SCOPES, ...PLATFORM_SCOPES, ...PARTNER_ADMIN_SCOPES];

export const isScope = (value: string): value is Scope => ALL_SCOPES.includes(value);
