import { keyAttributes, walletTable } from '../tables';

const STORED_KEYS = new Set([...keyAttributes(walletTable).map((attribute) => attribute.name), 'entity']);

/**
 * A record's own fields, without the table and index keys it was read with: what a service
 * rewrites under the keys its new state calls for (an index key a state no longer has goes).
 */
export const recordFields = (record: object): Record<string, unknown> => Object.fromEntries(Object.entries(record).filter(([name]) => !STORED_KEYS.has(name)));

/**
 * Every WalletTable key is built here (entity chart: docs/data-model.md). Each entity that takes
 * writes has a partition of its own; per-tenant listings go through GSIs.
 */
export const walletKeys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  /** gsi1: every tenant, newest first by id. */
  tenantsIndex: (tenantId: string) => ({ gsi1pk: 'TENANTS', gsi1sk: tenantId }),
  tenantsPartition: 'TENANTS',
  /** A tenant creation's Idempotency-Key (hashed with the caller): holds the tenant id a retry resumes. */
  tenantCreation: (keyHash: string) => ({ pk: `TENANT_CREATE#${keyHash}`, sk: 'TENANT_CREATE' }),
  /** gsi2 partition of every user, newest first (the platform listing). */
  usersPartition: 'USERS',
  /** Where a cross-tenant transaction page that ended at `lastId` left each tenant's ledger listing (TTL). */
  platformTransactionsCursor: (filtersHash: string, lastId: string) => ({ pk: `PLATFORM_TXN_CURSOR#${filtersHash}#${lastId}`, sk: 'CURSOR' }),

  user: (userId: string) => ({ pk: `USER#${userId}`, sk: 'USER' }),
  /** gsi1: a tenant's users; gsi2: every user (platform listing). */
  userIndexes: (tenantId: string, userId: string) => ({ gsi1pk: `TENANT#${tenantId}#USERS`, gsi1sk: userId, gsi2pk: 'USERS', gsi2sk: userId }),
  tenantUsers: (tenantId: string) => `TENANT#${tenantId}#USERS`,
  /** Uniqueness of external_id in a tenant, and the lookup user tokens and IdP tokens use. */
  userExternal: (tenantId: string, externalId: string) => ({ pk: `TENANT#${tenantId}#USER_EXT#${externalId}`, sk: 'USER_EXT' }),

  /** By the key id's 32 hex digits (the form the key string carries), whichever form is given. */
  apiKey: (keyId: string) => ({ pk: `APIKEY#${keyId.replace(/-/g, '')}`, sk: 'APIKEY' }),
  /** gsi1: a tenant's keys. */
  apiKeyIndex: (tenantId: string, keyId: string) => ({ gsi1pk: `TENANT#${tenantId}#APIKEYS`, gsi1sk: keyId.replace(/-/g, '') }),
  tenantApiKeys: (tenantId: string) => `TENANT#${tenantId}#APIKEYS`,

  staff: (staffId: string) => ({ pk: `STAFF#${staffId}`, sk: 'STAFF' }),
  staffEmail: (email: string) => ({ pk: `STAFF_EMAIL#${email.toLowerCase()}`, sk: 'STAFF_EMAIL' }),
  /** gsi1: every staff account, oldest first by id (the operator's list). */
  staffIndex: (staffId: string) => ({ gsi1pk: 'STAFF', gsi1sk: staffId }),
  staffPartition: 'STAFF',

  /** Append-only audit records, per tenant (or PLATFORM), newest first by id. */
  audit: (scope: string, auditId: string) => ({ pk: `AUDIT#${scope}`, sk: auditId }),
  auditPartition: (scope: string) => `AUDIT#${scope}`,
  /** Append-only cross-tenant access log (platform reads). */
  accessLog: (day: string, entryId: string) => ({ pk: `ACCESS_LOG#${day}`, sk: entryId }),

  grant: (grantId: string) => ({ pk: `GRANT#${grantId}`, sk: 'GRANT' }),
  /** At most one live grant per engineer and tenant: this marker holds the live grant's id and expiry. */
  liveGrant: (staffId: string, tenantId: string) => ({ pk: `STAFF#${staffId}`, sk: `LIVE_GRANT#${tenantId}` }),
  /** gsi1: a tenant's grants. */
  grantIndex: (tenantId: string, grantId: string) => ({ gsi1pk: `TENANT#${tenantId}#GRANTS`, gsi1sk: grantId }),
  tenantGrants: (tenantId: string) => `TENANT#${tenantId}#GRANTS`,
};
