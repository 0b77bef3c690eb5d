import * as z from '../../kernel/zod';
import { defineRoute, idempotencyOptional, type Access } from '../../http/route';
import { cursor, page, pageLimit, uuid, createdRange } from '../../http/schemas';
import { feePlanChange } from './fee-schemas';
import * as s from './schemas';

/**
 * Tenancy routes on the wallet API: tenant provisioning and health (platform staff), fee plans,
 * users, the ledger summary, the audit log and the platform's cross-tenant reads (spec part 4
 * items 11, 12, 13, 19, 20, 21, 23).
 */

/** Tenant provisioning: anyone but platform staff holding platform:manage gets platform_scope_only. */
const platformManage: Access = { principals: ['platform_staff'], scopes: ['platform:manage'], wrongPrincipal: 'platform_scope_only', missingScope: 'platform_scope_only' };
/** Cross-tenant reads: anyone but platform staff holding platform:read gets global_read_only. */
const platformRead: Access = { principals: ['platform_staff'], scopes: ['platform:read'], wrongPrincipal: 'global_read_only', missingScope: 'global_read_only' };
/** Surfaces that refuse user tokens outright (spec part 5 rule 2): they get `forbidden`. */
const tenantOperator = (scope: string): Access => ({ principals: ['api_key', 'tenant_staff'], scopes: [scope] });

const wallet = { api: 'wallet' } as const;
const reads = { wallet: 'RO' } as const;
const writes = { wallet: 'RW' } as const;

export const tenancyRoutes = {
  createTenant: defineRoute({
    ...wallet,
    operationId: 'createTenant',
    method: 'POST',
    path: '/v1/tenants',
    handler: 'tenancy/create-tenant',
    summary: 'Provision a tenant: its ledger first, then its accounts and the tenant (platform staff)',
    tags: ['tenants'],
    access: platformManage,
    request: { body: s.tenantCreate },
    response: { status: 201, body: s.tenant, description: 'The new tenant; a retry with the same Idempotency-Key answers the same tenant.' },
    errors: ['idempotency_key_reuse', 'service_unavailable'],
    // Optional: with a key, a retried provisioning answers the same tenant and ledger.
    idempotency: idempotencyOptional(255, 'operation'),
    tables: writes,
    capabilities: ['callsLedger'],
  }),
  listTenants: defineRoute({
    ...wallet,
    operationId: 'listTenants',
    method: 'GET',
    path: '/v1/tenants',
    handler: 'tenancy/list-tenants',
    summary: 'List tenants, newest first, with fee plan and commission mode (platform staff)',
    tags: ['tenants'],
    access: platformRead,
    request: { query: s.listQuery },
    response: { status: 200, body: page(s.tenant), description: 'A page of tenants.' },
    errors: [],
    tables: reads,
  }),
  getTenantHealth: defineRoute({
    ...wallet,
    operationId: 'getTenantHealth',
    method: 'GET',
    path: '/v1/tenants/{tenantId}/health',
    handler: 'tenancy/get-tenant-health',
    summary: "A tenant's ledger rollup by owner type, purpose and commodity, and whether it nets to zero (platform staff)",
    tags: ['tenants'],
    access: platformRead,
    request: { params: z.object({ tenantId: uuid }) },
    response: { status: 200, body: s.tenantHealth, description: 'The health snapshot.' },
    errors: ['tenant_not_found', 'service_unavailable'],
    tables: reads,
    capabilities: ['callsLedger'],
  }),
  getFeePlan: defineRoute({
    ...wallet,
    operationId: 'getFeePlan',
    method: 'GET',
    path: '/v1/fee_plan',
    handler: 'tenancy/get-fee-plan',
    summary: "The tenant's fee plan and commission mode",
    tags: ['fees'],
    access: tenantOperator('fees:manage'),
    request: {},
    response: { status: 200, body: s.feePlan, description: 'The fee plan.' },
    errors: ['tenant_not_found'],
    tables: reads,
  }),
  setFeePlan: defineRoute({
    ...wallet,
    operationId: 'setFeePlan',
    method: 'PUT',
    path: '/v1/fee_plan',
    handler: 'tenancy/set-fee-plan',
    summary: 'Replace the named fee paths whole (the others stay) and optionally the commission mode',
    description: 'In each rule, `min_fee` must not exceed `max_fee` when a cap is set.',
    tags: ['fees'],
    access: tenantOperator('fees:manage'),
    request: { body: feePlanChange },
    response: { status: 200, body: s.feePlan, description: 'The fee plan after the change.' },
    errors: ['tenant_not_found', 'service_unavailable'],
    tables: writes,
  }),
  createUser: defineRoute({
    ...wallet,
    operationId: 'createUser',
    method: 'POST',
    path: '/v1/users',
    handler: 'tenancy/create-user',
    summary: "Create a wallet user, with its cash account in the tenant's ledger",
    tags: ['users'],
    access: tenantOperator('users:write'),
    request: { body: s.userCreate },
    response: { status: 201, body: s.user, description: 'The new user.' },
    errors: ['conflict', 'tenant_not_found', 'service_unavailable'],
    idempotency: idempotencyOptional(),
    tables: writes,
    capabilities: ['callsLedger'],
  }),
  listUsers: defineRoute({
    ...wallet,
    operationId: 'listUsers',
    method: 'GET',
    path: '/v1/users',
    handler: 'tenancy/list-users',
    summary: "List the tenant's users, newest first, or find one by external_id (a user token sees only its own user)",
    tags: ['users'],
    access: { principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user', 'vendor_support'], scopes: ['users:read'] },
    request: { query: s.usersQuery },
    response: { status: 200, body: page(s.user), description: 'A page of users.' },
    errors: [],
    // RO: an IdP user's first contact here is queued (shared/wallet/auth/credential-queues.ts).
    tables: reads,
  }),
  getUser: defineRoute({
    ...wallet,
    operationId: 'getUser',
    method: 'GET',
    path: '/v1/users/{userId}',
    handler: 'tenancy/get-user',
    summary: 'Read a user (a user token reads only its own user)',
    tags: ['users'],
    access: { principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user', 'vendor_support'], scopes: ['users:read'] },
    request: { params: z.object({ userId: uuid }) },
    response: { status: 200, body: s.user, description: 'The user.' },
    errors: ['user_not_found'],
    // RO: an IdP user's first contact here is queued (shared/wallet/auth/credential-queues.ts).
    tables: reads,
  }),
  getLedgerSummary: defineRoute({
    ...wallet,
    operationId: 'getLedgerSummary',
    method: 'GET',
    path: '/v1/ledger/summary',
    handler: 'tenancy/get-ledger-summary',
    summary: "The tenant's ledger balances by owner type, purpose and commodity, with its fee plan",
    tags: ['ledger'],
    access: tenantOperator('ledger:read'),
    request: {},
    response: { status: 200, body: s.ledgerSummary, description: 'The ledger summary.' },
    errors: ['tenant_not_found', 'service_unavailable'],
    tables: reads,
    capabilities: ['callsLedger'],
  }),
  listAuditLog: defineRoute({
    ...wallet,
    operationId: 'listAuditLog',
    method: 'GET',
    path: '/v1/audit_log',
    handler: 'tenancy/list-audit-log',
    summary: "The tenant's audit log, newest first (platform staff: a tenant's with tenant_id, else the platform's)",
    tags: ['audit'],
    access: { principals: ['api_key', 'tenant_staff', 'platform_staff', 'vendor_support'], scopes: ['audit:read', 'platform:read'] },
    request: { query: z.strictObject({ tenant_id: z.optional(uuid), ...createdRange, cursor, limit: pageLimit() }) },
    response: { status: 200, body: page(s.auditRecord), description: 'A page of audit records.' },
    errors: ['tenant_not_found'],
    tables: reads,
  }),
  listPlatformTransactions: defineRoute({
    ...wallet,
    operationId: 'listPlatformTransactions',
    method: 'GET',
    path: '/v1/platform/transactions',
    handler: 'tenancy/list-platform-transactions',
    summary: 'Transactions across tenants, newest first (platform staff; every read is logged)',
    tags: ['cross-tenant'],
    access: platformRead,
    request: {
      query: z.strictObject({
        tenant_id: z.optional(uuid),
        type: z.optional(z.string().check(z.minLength(1), z.maxLength(40))),
        /** The id of the last transaction read. */
        cursor: z.optional(uuid),
        limit: pageLimit(50, 100),
      }),
    },
    response: {
      status: 200,
      body: z.array(s.crossTenantTransaction),
      description: 'Transactions across tenants, newest first, as a JSON array (spec part 4 item 19): pass the last id as `cursor` for the next ones; fewer than `limit` means the end.',
    },
    errors: ['service_unavailable'],
    tables: reads,
    capabilities: ['callsLedger'],
    function: { timeoutSeconds: 29 },
  }),
  listAccessLog: defineRoute({
    ...wallet,
    operationId: 'listAccessLog',
    method: 'GET',
    path: '/v1/platform/access_log',
    handler: 'tenancy/list-access-log',
    summary: 'The access log, newest first: platform reads across tenants and requests made under support access grants (platform staff; this read is logged too)',
    tags: ['cross-tenant'],
    access: platformRead,
    request: { query: s.accessLogQuery },
    response: { status: 200, body: page(s.accessLogEntry), description: 'A page of access log entries.' },
    errors: ['service_unavailable'],
    // Its own entry goes through the access-records queue, as every cross-tenant read's does.
    tables: reads,
  }),
  listPlatformUsers: defineRoute({
    ...wallet,
    operationId: 'listPlatformUsers',
    method: 'GET',
    path: '/v1/platform/users',
    handler: 'tenancy/list-platform-users',
    summary: 'Wallet users across tenants, newest first, optionally of one tenant or matching q (platform staff; logged)',
    tags: ['cross-tenant'],
    access: platformRead,
    request: {
      query: z.strictObject({ tenant_id: z.optional(uuid), q: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))), cursor, limit: pageLimit() }),
    },
    response: { status: 200, body: page(s.platformUser), description: 'A page of users.' },
    errors: [],
    tables: reads,
  }),
};
