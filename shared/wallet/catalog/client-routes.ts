import * as z from '../../kernel/zod';
import { defineRoute, type Access, idempotencyOptional } from '../../http/route';
import type { ErrorCode } from '../../kernel/errors';
import { page, uuid } from '../../http/schemas';
import * as s from './client-schemas';

/**
 * The catalog's client routes (docs/catalog.md): onboarding, approval, suspension, members and
 * platform moderation, apart from the offering routes (./routes.ts) so a client function builds
 * only the client schemas at import. What both share (who may call, the lanes) is here.
 */

const operators = ['api_key', 'tenant_staff', 'partner_admin'] as const;
/** Tenant-level client administration: clients:manage (bound keys never). */
const manage: Access = { principals: operators, scopes: ['clients:manage'] };
/** A client's own routes: authority over the client and a catalog scope. */
export const clientRead: Access = { principals: operators, scopes: ['merchants:read', 'merchants:write', 'clients:manage'], boundKeys: true };
export const clientWrite: Access = { principals: operators, scopes: ['merchants:write', 'clients:manage'], boundKeys: true };
/** Explore: every credential of the tenant that holds catalog:read, shoppers included. */
export const explore: Access = { principals: [...operators, 'user_token', 'idp_user'], scopes: ['catalog:read'], boundKeys: true };
const platformManage: Access = { principals: ['platform_staff'], scopes: ['platform:manage'] };

export const wallet = { api: 'wallet', tags: ['catalog'] } as const;
/**
 * Bulkheads (shared/http/bulkheads.ts): reserved concurrency comes out of one regional pool, so
 * the catalog's administration gets a narrow lane, the merchant's catalog a middle one, and
 * shoppers' Explore the wallet's default.
 */
const adminLane = { function: { maxConcurrency: 2 } } as const;
export const merchantLane = { function: { maxConcurrency: 4 } } as const;
export const tables = { wallet: 'RW' } as const;
export const authority: readonly ErrorCode[] = ['client_not_found', 'not_client_member'];

export const clientParams = z.object({ clientId: uuid });
export const offeringParams = z.object({ clientId: uuid, offeringId: uuid });
export const variantParams = z.object({ clientId: uuid, offeringId: uuid, variantId: uuid });

export const clientRoutes = {
  createClient: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'createClient',
    method: 'POST',
    path: '/v1/clients',
    handler: 'catalog/create-client',
    summary: 'Onboard a client (merchant profile), pending until approved; a self-serving staff member becomes its first member',
    access: { principals: operators, scopes: ['clients:onboard', 'clients:manage'] },
    request: { body: s.clientCreate },
    response: { status: 201, body: s.client, description: 'The client, `pending`.' },
    errors: ['not_found', 'conflict'],
    idempotency: idempotencyOptional(),
    tables,
  }),
  listClients: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'listClients',
    method: 'GET',
    path: '/v1/clients',
    handler: 'catalog/list-clients',
    summary: "The tenant's clients, newest first",
    access: manage,
    request: { query: s.clientListQuery },
    response: { status: 200, body: page(s.client), description: 'A page of clients.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  getClient: defineRoute({
    ...wallet,
    ...merchantLane,
    operationId: 'getClient',
    method: 'GET',
    path: '/v1/clients/{clientId}',
    handler: 'catalog/get-client',
    summary: 'Read a client',
    access: clientRead,
    request: { params: clientParams },
    response: { status: 200, body: s.client, description: 'The client.' },
    errors: authority,
    tables: { wallet: 'RO' },
  }),
  approveClient: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'approveClient',
    method: 'POST',
    path: '/v1/clients/{clientId}/approve',
    handler: 'catalog/approve-client',
    summary: 'Approve a client: `active`, with approved_at (approving an active client changes nothing)',
    access: manage,
    request: { params: clientParams },
    response: { status: 200, body: s.client, description: 'The client, `active`.' },
    errors: ['client_not_found'],
    idempotency: idempotencyOptional(),
    tables,
  }),
  suspendClient: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'suspendClient',
    method: 'POST',
    path: '/v1/clients/{clientId}/suspend',
    handler: 'catalog/suspend-client',
    summary: 'Suspend a client: it leaves Explore until approved again',
    access: manage,
    request: { params: clientParams },
    response: { status: 200, body: s.client, description: 'The client, `suspended`.' },
    errors: ['client_not_found'],
    idempotency: idempotencyOptional(),
    tables,
  }),
  addClientMember: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'addClientMember',
    method: 'POST',
    path: '/v1/clients/{clientId}/members',
    handler: 'catalog/add-client-member',
    summary: "Add a member to a client's organization: a tenant staff member, with authority over this client only",
    access: manage,
    request: { params: clientParams, body: s.memberCreate },
    response: { status: 201, body: s.member, description: 'The membership.', also: [{ status: 200, description: 'Already a member: the membership.' }] },
    errors: ['client_not_found', 'not_found'],
    idempotency: idempotencyOptional(),
    tables,
  }),
  removeClientMember: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'removeClientMember',
    method: 'DELETE',
    path: '/v1/clients/{clientId}/members/{staffId}',
    handler: 'catalog/remove-client-member',
    summary: "Remove a member: end a staff member's membership of the client's organization",
    access: manage,
    request: { params: z.object({ clientId: uuid, staffId: uuid }) },
    response: { status: 200, body: s.member, description: 'The membership that ended.' },
    errors: ['client_not_found', 'not_found'],
    tables,
  }),
  hideClient: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'hideClient',
    method: 'POST',
    path: '/v1/platform/clients/{clientId}/hide',
    handler: 'catalog/hide-client',
    summary: "Hide a client: its whole catalog from Explore (settled money, refunds and payouts keep working)",
    access: platformManage,
    request: { params: clientParams },
    response: { status: 200, body: s.client, description: 'The client, hidden.' },
    errors: ['client_not_found'],
    idempotency: idempotencyOptional(),
    tables,
  }),
  unhideClient: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'unhideClient',
    method: 'POST',
    path: '/v1/platform/clients/{clientId}/unhide',
    handler: 'catalog/unhide-client',
    summary: "Unhide a client: show its catalog in Explore again",
    access: platformManage,
    request: { params: clientParams },
    response: { status: 200, body: s.client, description: 'The client, visible.' },
    errors: ['client_not_found'],
    idempotency: idempotencyOptional(),
    tables,
  }),
};
