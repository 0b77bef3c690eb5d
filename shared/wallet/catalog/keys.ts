/**
 * WalletTable keys of the catalog (docs/data-model.md): clients and their members, offerings with
 * their variants in one partition, the uniqueness guards (org alias, SKU, import ref) and the
 * append-only stock log.
 */
export const catalogKeys = {
  client: (clientId: string) => ({ pk: `CLIENT#${clientId}`, sk: 'CLIENT' }),
  /** gsi1: a tenant's clients, newest first. */
  tenantClients: (tenantId: string) => `TENANT#${tenantId}#CLIENTS`,
  /** gsi2: a tenant's clients Explore may show (active and not hidden), newest first. */
  exploreClients: (tenantId: string) => `TENANT#${tenantId}#EXPLORE`,
  /** org_alias is unique in a tenant. */
  alias: (tenantId: string, alias: string) => ({ pk: `TENANT#${tenantId}#CLIENT_ALIAS#${alias}`, sk: 'CLIENT_ALIAS' }),
  /** A client is its merchant's profile: one per merchant; holds the client's id. */
  merchantClient: (merchantId: string) => ({ pk: `MERCHANT#${merchantId}`, sk: 'CLIENT' }),
  /** A staff member's organization membership (authority over this client only). */
  member: (clientId: string, staffId: string) => ({ pk: `CLIENT#${clientId}`, sk: `MEMBER#${staffId}` }),

  offering: (offeringId: string) => ({ pk: `OFFERING#${offeringId}`, sk: 'OFFERING' }),
  offeringPartition: (offeringId: string) => `OFFERING#${offeringId}`,
  /** gsi1: a client's offerings, newest first. */
  clientOfferings: (clientId: string) => `CLIENT#${clientId}#OFFERINGS`,
  /** gsi2: a client's published offerings (the keys exist only while published). */
  publishedOfferings: (clientId: string) => `CLIENT#${clientId}#PUBLISHED`,
  /** Variants live in their offering's partition, in creation order. */
  variant: (offeringId: string, variantId: string) => ({ pk: `OFFERING#${offeringId}`, sk: `VARIANT#${variantId}` }),
  variantPrefix: 'VARIANT#',
  /** gsi1 of a variant: found by its id alone (an order line names only the variant). */
  variantLookup: (variantId: string) => ({ gsi1pk: `VARIANT#${variantId}`, gsi1sk: 'VARIANT' }),
  /** A SKU is unique in a client's catalog (every variant that ever had it); holds the variant it names. */
  sku: (clientId: string, sku: string) => ({ pk: `CLIENT#${clientId}#SKU#${sku}`, sk: 'SKU' }),
  /** An import `ref` is unique in a client's catalog; holds the offering it names. */
  ref: (clientId: string, ref: string) => ({ pk: `CLIENT#${clientId}#REF#${ref}`, sk: 'REF' }),

  movement: (movementId: string) => ({ pk: `STOCK_MOVEMENT#${movementId}`, sk: 'STOCK_MOVEMENT' }),
  /** gsi1: a client's stock log, newest first; gsi2: one variant's. */
  clientMovements: (clientId: string) => `CLIENT#${clientId}#STOCK`,
  variantMovements: (variantId: string) => `VARIANT#${variantId}#STOCK`,

  import: (importId: string) => ({ pk: `CATALOG_IMPORT#${importId}`, sk: 'CATALOG_IMPORT' }),
};
