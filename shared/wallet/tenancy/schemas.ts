import * as z from 'zod';
import { CURRENCY_PATTERN, cursor, metadata, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';
import { isActiveCurrency } from './currencies';
import { COMMISSION_MODES, FEE_PATHS, type FeePath } from './fees';
import { EXTERNAL_ID_PATTERN, USER_KINDS } from './user-fields';

/** Request and response shapes of the tenancy routes (tenants, fee plans, users, audit, platform reads). */

export const listQuery = z.object({ ...createdRange, cursor, limit: pageLimit() }).strict();

// Tenants and fee plans -------------------------------------------------------------------------

export const feeRule = z.object({
  bps: z.number().int(),
  flat: z.number().int(),
  min_fee: z.number().int(),
  /** Absent: no cap. */
  max_fee: z.number().int().optional(),
});

export const fees = z.object(Object.fromEntries(FEE_PATHS.map((path) => [path, feeRule])) as Record<FeePath, typeof feeRule>);
export const commissionMode = z.enum(COMMISSION_MODES);
export const feePlan = z.object({ fees, commission_mode: commissionMode });

export const tenantCreate = z
  .object({
    name: z.string().trim().min(1, 'must not be blank').max(100),
    currency: z
      .string()
      .refine(isActiveCurrency, 'must be an active ISO 4217 currency code, such as USD')
      .meta({ pattern: CURRENCY_PATTERN, description: 'An active ISO 4217 currency code, such as USD: three upper-case letters, and one of the codes in use.' }),
  })
  .strict();

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
  balance: z.number().int(),
  pending_debits: z.number().int(),
  pending_credits: z.number().int(),
  accounts: z.number().int(),
});

export const tenantHealth = z.object({
  tenant_id: uuid,
  tenant_name: z.string(),
  ledger_id: uuid,
  currency: z.string(),
  rows: z.array(rollupRow),
  commodities: z.array(z.object({ commodity: z.string(), total: z.number().int(), balanced: z.boolean() })),
  /** Every commodity nets to zero across the tenant's ledger. */
  balanced: z.boolean(),
});

export const ledgerSummary = z.object({
  currency: z.string(),
  rows: z.array(z.object({ owner_type: z.string(), purpose: z.string(), commodity: z.string(), balance: z.number().int(), accounts: z.number().int() })),
  fee_plan: feePlan,
});

// Users -----------------------------------------------------------------------------------------


/** `GET /v1/users`: a page, or the one user with this external_id (exact match, no scan). */
export const usersQuery = z
  .object({
    ...createdRange,
    cursor,
    limit: pageLimit(),
    external_id: z.string().regex(EXTERNAL_ID_PATTERN, '1 to 200 of A-Z a-z 0-9 . _ : @ -').optional().meta({ description: "The tenant's own id for the user: the answer holds that user, or nobody." }),
  })
  .strict();

export const userCreate = z
  .object({
    external_id: z.string().regex(EXTERNAL_ID_PATTERN, '1 to 200 of A-Z a-z 0-9 . _ : @ -'),
    kind: z.enum(USER_KINDS).default('consumer'),
    metadata: metadata.optional(),
  })
  .strict();

export const user = z.object({
  id: uuid,
  external_id: z.string(),
  kind: z.enum(USER_KINDS),
  status: z.string(),
  metadata: z.record(z.string(), z.string()),
  created_at: timestamp,
});

export const platformUser = user.extend({ tenant_id: uuid, tenant_name: z.string() });

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
      amount: z.number().int(),
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
    tenant_id: uuid.nullable(),
    grant_id: uuid.nullable(),
    /** The route's operation id. */
    operation: z.string(),
    /** `grant_ended`: a support request made after its grant ended, refused. */
    outcome: z.enum(['admitted', 'grant_ended']),
    /** A cross-tenant read's filters; null for a support request. */
    filters: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).nullable(),
    /** Records a cross-tenant read returned; null for a support request. */
    count: z.number().int().nullable(),
    request_id: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'AccessLogEntry' });

export const accessLogQuery = z
  .object({
    /** Its entries, and reads across every tenant. */
    tenant_id: uuid.optional(),
    /** A staff id: platform staff for reads, the engineer for support requests. */
    actor_id: z.string().min(1).max(100).optional(),
    grant_id: uuid.optional(),
    /** Inclusive; default 90 days before `until`. */
    since: timestamp.optional(),
    /** Exclusive; default now. */
    until: timestamp.optional(),
    cursor,
    limit: pageLimit(),
  })
  .strict();
