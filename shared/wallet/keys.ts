import { keyAttributes, walletTable } from '../tables';

const STORED_KEYS = new Set([...keyAttributes(walletTable).map((attribute) => attribute.name), 'entity']);

/**
 * A record's own fields, without the table and index keys it was read with: what a service
 * rewrites under the keys its new state calls for (an index key a state no longer has goes).
 */
export const recordFields = (record: object): Record<string, unknown> => Object.fromEntries(Object.entries(record).filter(([name]) => !STORED_KEYS.has(name)));

const accessLogDay = (day: string) => `ACCESS_LOG#${day}`;
/** null: a read across every tenant. */
const accessLogByTenant = (tenantId: string | null) => `ACCESS_LOG#TENANT#${tenantId ?? '*'}`;
const accessLogByActor = (actorId: string) => `ACCESS_LOG#ACTOR#${actorId}`;
const accessLogByGrant = (grantId: string) => `ACCESS_LOG#GRANT#${grantId}`;

/** The UTC day (`2026-11-21`) of a UUIDv7's time: its first 48 bits are Unix milliseconds. */
export const dayOfId = (id: string): string => new Date(msOfId(id)).toISOString().slice(0, 10);
export const msOfId = (id: string): number => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

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
  /**
   * The access log, append-only: cross-tenant reads by platform staff and requests under support
   * grants, whoever writes them (docs/data-model.md). One partition per UTC day of the entry's
   * UUIDv7 id, sorted by id; indexed by tenant (gsi1; `*` for a read across every tenant), by
   * actor (gsi2) and by grant (gsi3, grant requests only). Readers page these keys and nothing of
   * the writer's (shared/wallet/tenancy/access-log.ts, shared/wallet/console/grant-requests.ts).
   */
  accessLogEntry: (entry: { id: string; tenantId: string | null; actorId: string; grantId: string | null }) => ({
    pk: accessLogDay(dayOfId(entry.id)),
    sk: entry.id,
    gsi1pk: accessLogByTenant(entry.tenantId),
    gsi1sk: entry.id,
    gsi2pk: accessLogByActor(entry.actorId),
    gsi2sk: entry.id,
    ...(entry.grantId ? { gsi3pk: accessLogByGrant(entry.grantId), gsi3sk: entry.id } : {}),
  }),
  /** One UTC day of the access log (`2026-11-21`); entries written before the indexes are found only here. */
  accessLogDay,
  accessLogByTenant,
  accessLogByActor,
  accessLogByGrant,

  grant: (grantId: string) => ({ pk: `GRANT#${grantId}`, sk: 'GRANT' }),
  /** At most one live grant per engineer and tenant: this marker holds the live grant's id and expiry. */
  liveGrant: (staffId: string, tenantId: string) => ({ pk: `STAFF#${staffId}`, sk: `LIVE_GRANT#${tenantId}` }),
  /** gsi1: a tenant's grants. */
  grantIndex: (tenantId: string, grantId: string) => ({ gsi1pk: `TENANT#${tenantId}#GRANTS`, gsi1sk: grantId }),
  tenantGrants: (tenantId: string) => `TENANT#${tenantId}#GRANTS`,
};
