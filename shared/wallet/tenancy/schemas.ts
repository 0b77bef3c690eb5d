import * as z from '../../kernel/zod';
import { CURRENCY_PATTERN, cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { isActiveCurrency } from './currencies';
import { COMMISSION_MODES, FEE_PATHS, type FeePath } from './fees';
import { EXTERNAL_ID_PATTERN, USER_KINDS } from './user-fields';

/** Request and response shapes of the tenancy routes (tenants, fee plans, users, audit, platform reads). */

export const listQuery = z.strictObject({ ...createdRange, cursor, limit: pageLimit() });

// Tenants and fee plans -------------------------------------------------------------------------

export const feeRule = z.object({
  bps: z.int(),
  flat: z.int(),
  min_fee: z.int(),
  /** Absent: no cap. */
  max_fee: z.optional(z.int()),
});

export const fees = z.object(Object.fromEntries(FEE_PATHS.map((path) => [path, feeRule])) as Record<FeePath, typeof feeRule>);
export const commissionMode = z.enum(COMMISSION_MODES);
export const feePlan = z.object({ fees, commission_mode: commissionMode });

export const tenantCreate = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1, 'must not be blank'), z.maxLength(100)),
  currency: z
    .string()
    .check(
      z.refine(isActiveCurrency, 'must be an active ISO 4217 currency code, such as USD'),
      z.meta({ pattern: CURRENCY_PATTERN, description: 'An active ISO 4217 currency code, such as USD: three upper-case letters, and one of the codes in use.' }),
    ),
});

export const tenant = z.object({
  id: uuid,
  name: z.string(),
  currency: z.string(),
  status: z.string(),
  fees,
  commission_mode: commissionMode,
  created_at: timestamp,
});

const rollupRow = z.object({
  owner_type: z.string(),
  purpose: z.string(),
  commodity: z.string(),
  balance: z.int(),
  pending_debits: z.int(),
  pending_credits: z.int(),
  accounts: z.int(),
});

export const tenantHealth = z.object({
  tenant_id: uuid,
  tenant_name: z.string(),
  ledger_id: uuid,
  currency: z.string(),
  rows: z.array(rollupRow),
  commodities: z.array(z.object({ commodity: z.string(), total: z.int(), balanced: z.boolean() })),
  /** Every commodity nets to zero across the tenant's ledger. */
  balanced: z.boolean(),
});

export const ledgerSummary = z.object({
  currency: z.string(),
  rows: z.array(z.object({ owner_type: z.string(), purpose: z.string(), commodity: z.string(), balance: z.int(), accounts: z.int() })),
  fee_plan: feePlan,
});

// Users -----------------------------------------------------------------------------------------


/** `GET /v1/users`: a page, or the one user with this external_id (exact match, no scan). */
export const usersQuery = z.strictObject({
  ...createdRange,
  cursor,
  limit: pageLimit(),
  external_id: z
    .optional(z.string().check(z.regex(EXTERNAL_ID_PATTERN, '1 to 200 of A-Z a-z 0-9 . _ : @ -')))
    .check(z.meta({ description: "The tenant's own id for the user: the answer holds that user, or nobody." })),
});

export const userCreate = z.strictObject({
  external_id: z.string().check(z.regex(EXTERNAL_ID_PATTERN, '1 to 200 of A-Z a-z 0-9 . _ : @ -')),
  kind: z._default(z.enum(USER_KINDS), 'consumer'),
  metadata: z.optional(metadata),
});

export const user = z.object({
  id: uuid,
  external_id: z.string(),
  kind: z.enum(USER_KINDS),
  status: z.string(),
  metadata: z.record(z.string(), z.string()),
  created_at: timestamp,
});

export const platformUser = z.extend(user, { tenant_id: uuid, tenant_name: z.string() });

// Audit log and platform reads ------------------------------------------------------------------

export const auditRecord = z.object({
  id: uuid,
  actor: z.object({ type: z.string(), id: z.string() }),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  before: z.unknown(),
  after: z.unknown(),
  request_id: z.string(),
  created_at: timestamp,
});

export const crossTenantTransaction = z.object({
  id: uuid,
  tenant_id: uuid,
  tenant_name: z.string(),
  type: z.string(),
  status: z.string(),
  metadata: z.record(z.string(), z.string()),
  legs: z.array(
    z.object({
      owner_type: z.string(),
      owner_id: uuid,
      purpose: z.string(),
      direction: z.enum(['debit', 'credit']),
      amount: z.int(),
      commodity: z.string(),
    }),
  ),
  created_at: timestamp,
});

/** An entry of the access log: a platform read across tenants, or a request made under a support access grant. */
export const accessLogEntry = z
  .object({
    id: uuid,
    kind: z.enum(['cross_tenant_read', 'support_access']),
    actor: z.object({ type: z.string(), id: z.string() }),
    /** The tenant read or acted on; null for a read across every tenant. */
    tenant_id: z.nullable(uuid),
    grant_id: z.nullable(uuid),
    /** The route's operation id. */
    operation: z.string(),
    /** `grant_ended`: a support request made after its grant ended, refused. */
    outcome: z.enum(['admitted', 'grant_ended']),
    /** A cross-tenant read's filters; null for a support request. */
    filters: z.nullable(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
    /** Records a cross-tenant read returned; null for a support request. */
    count: z.nullable(z.int()),
    request_id: z.nullable(z.string()),
    created_at: timestamp,
  })
  .check(z.meta({ id: 'AccessLogEntry' }));

export const accessLogQuery = z.strictObject({
  /** Its entries, and reads across every tenant. */
  tenant_id: z.optional(uuid),
  /** A staff id: platform staff for reads, the engineer for support requests. */
  actor_id: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  grant_id: z.optional(uuid),
  /** Inclusive; default 90 days before `until`. */
  since: z.optional(timestamp),
  /** Exclusive; default now. */
  until: z.optional(timestamp),
  cursor,
  limit: pageLimit(),
});
