import type { PrincipalKind } from '../../http/principal';

/**
 * Staff roles and the principal kind each one's session resolves to. Apart from ./staff.ts (the
 * accounts, passwords and login) because the credential hook of every function needs these few
 * lines and must not carry the password code with them.
 */

export type StaffRole = 'platform' | 'vendor_support' | 'partner_admin' | 'tenant_staff';
export const STAFF_ROLES: readonly StaffRole[] = ['platform', 'vendor_support', 'partner_admin', 'tenant_staff'];

const ROLE_KINDS: Record<StaffRole, PrincipalKind> = {
  platform: 'platform_staff',
  vendor_support: 'vendor_support',
  partner_admin: 'partner_admin',
  tenant_staff: 'tenant_staff',
};

export const principalKindOf = (role: StaffRole): PrincipalKind => ROLE_KINDS[role];
export const isStaffRole = (value: unknown): value is StaffRole => typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);

/** Tenant staff and partner administrators belong to a tenant; platform and vendor support staff to none (vendor support reaches a tenant through a support access grant). */
export const roleHasTenant = (role: StaffRole): boolean => role === 'tenant_staff' || role === 'partner_admin';
