/**
 * What a user's kind and external id may be: plain values, apart from the schemas, so the credential
 * hook and the user service check them without building the tenancy API's schemas at import.
 */

export const USER_KINDS = ['consumer', 'business'] as const;
export type UserKind = (typeof USER_KINDS)[number];
/** A tenant's own id for its user: unique in the tenant, used in user tokens and IdP first contact. */
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,200}$/;
