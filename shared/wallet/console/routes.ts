import * as z from '../../kernel/zod';
import { defineRoute, type Access, idempotencyOptional } from '../../http/route';
import { cursor, page, pageLimit, timestamp, uuid, createdRange } from '../../http/schemas';

/**
 * The console API: operator routes that never reach the public gateway (spec part 4 item 16).
 * A partner administrator is a staff session that is neither platform nor vendor support and holds
 * support_access:manage; anyone else gets partner_admin_required.
 */
const partnerAdmin: Access = {
  principals: ['partner_admin', 'tenant_staff'],
  scopes: ['support_access:manage'],
  wrongPrincipal: 'partner_admin_required',
  missingScope: 'partner_admin_required',
};

const grant = z.object({
  id: uuid,
  tenant_id: uuid,
  staff_id: z.string(),
  reason: z.string(),
  ticket_reference: z.string(),
  created_by_type: z.string(),
  created_by_id: z.string(),
  created_at: timestamp,
  expires_at: timestamp,
  revoked_at: z.nullable(timestamp),
  revoked_by_type: z.nullable(z.string()),
  revoked_by_id: z.nullable(z.string()),
});

const grantRequest = z
  .object({
    id: uuid,
    grant_id: uuid,
    staff_id: z.string(),
    /** The route's operation id. */
    operation: z.string(),
    /** `grant_ended`: made after the grant ended, and refused. */
    outcome: z.enum(['admitted', 'grant_ended']),
    created_at: timestamp,
  })
  .check(z.meta({ id: 'SupportAccessGrantRequest' }));

const common = { api: 'console', access: partnerAdmin, tags: ['support access'] } as const;

export const consoleRoutes = {
  createGrant: defineRoute({
    ...common,
    operationId: 'createSupportAccessGrant',
    method: 'POST',
    path: '/v1/support_access_grants',
    handler: 'console/create-grant',
    summary: 'Grant a vendor support engineer access: to this tenant, until a time',
    request: {
      body: z.strictObject({
        staff_id: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
        reason: z.string().check(z.trim(), z.minLength(1), z.maxLength(500)),
        ticket_reference: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
        expires_at: timestamp,
      }),
    },
    response: { status: 201, body: grant, description: 'The grant.' },
    errors: ['support_access_already_active'],
    idempotency: idempotencyOptional(),
    tables: { wallet: 'RW' },
  }),
  listGrants: defineRoute({
    ...common,
    operationId: 'listSupportAccessGrants',
    method: 'GET',
    path: '/v1/support_access_grants',
    handler: 'console/list-grants',
    summary: "List this tenant's support access grants, newest first",
    request: { query: z.strictObject({ ...createdRange, cursor, limit: pageLimit() }) },
    response: { status: 200, body: page(grant), description: 'A page of grants.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  listGrantRequests: defineRoute({
    ...common,
    operationId: 'listSupportAccessGrantRequests',
    method: 'GET',
    path: '/v1/support_access_grants/{grantId}/requests',
    handler: 'console/list-grant-requests',
    summary: "Requests made under a grant: the engineer's, under one of this tenant's grants, newest first (refused ones too)",
    request: { params: z.object({ grantId: uuid }), query: z.strictObject({ cursor, limit: pageLimit() }) },
    response: { status: 200, body: page(grantRequest), description: 'A page of requests.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  revokeGrant: defineRoute({
    ...common,
    operationId: 'revokeSupportAccessGrant',
    method: 'POST',
    path: '/v1/support_access_grants/{grantId}/revoke',
    handler: 'console/revoke-grant',
    summary: 'End a support access grant now',
    request: { params: z.object({ grantId: uuid }), body: z.optional(z.strictObject({})) },
    response: { status: 200, body: grant, description: 'The revoked grant.' },
    errors: ['not_found'],
    idempotency: idempotencyOptional(),
    tables: { wallet: 'RW' },
  }),
};
