import * as z from 'zod';
import { defineRoute, idempotencyRequired, type Access } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';

/**
 * Webhook routes on the wallet API (spec part 4 item 22, part 6): endpoints (the tenant's and a
 * merchant's), delivery attempts, the event history and manual redelivery. Tenant surfaces admit
 * API keys and tenant staff (user tokens get `forbidden`; vendor support may read); merchant
 * surfaces also need authority over the client of the caller's tenant (spec part 5 rule 3),
 * checked in the service; a key bound to a client reaches only those.
 */

const manage: Access = { principals: ['api_key', 'tenant_staff'], scopes: ['webhooks:manage'] };
const read: Access = { principals: ['api_key', 'tenant_staff', 'vendor_support'], scopes: ['webhooks:read', 'webhooks:manage'] };
/** Merchant surfaces: a merchant key holding the webhook scope, or staff holding clients:manage (spec part 5 rule 3). */
const merchantManage: Access = { principals: ['api_key', 'tenant_staff', 'partner_admin'], scopes: ['webhooks:manage', 'clients:manage'], boundKeys: true };
const merchantRead: Access = { principals: ['api_key', 'tenant_staff', 'partner_admin'], scopes: ['webhooks:read', 'webhooks:manage', 'clients:manage'], boundKeys: true };

const wallet = { api: 'wallet' } as const;
const tables = { wallet: 'RW' } as const;
const tags = ['webhooks'];
const clientErrors = ['client_not_found', 'not_client_member'] as const;
const idempotent = ['idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'] as const;
/** Rotation, recovery and stats are rare operator actions: a narrow bulkhead lane keeps the manifest's reserved concurrency in bounds. */
const adminLane = { function: { maxConcurrency: 2 } } as const;
const endpointParams = z.object({ endpointId: uuid });
const clientEndpointParams = z.object({ clientId: uuid, endpointId: uuid });
const rotation = {
  ...adminLane,
  method: 'POST',
  tags,
  request: { body: s.rotateSecretRequest },
  response: { status: 200, body: s.endpointWithSecret, description: 'The endpoint with its new secret (shown once; a retry with the same Idempotency-Key answers it again).' },
  idempotency: idempotencyRequired(255),
  tables,
} as const;
const recovery = {
  ...adminLane,
  method: 'POST',
  tags,
  request: { body: s.recoverRequest },
  response: { status: 200, body: s.recoveryResult, description: 'The endpoint, active, and how many deliveries were queued again.' },
  tables,
} as const;

export const webhookRoutes = {
  createWebhookEndpoint: defineRoute({
    ...wallet,
    operationId: 'createWebhookEndpoint',
    method: 'POST',
    path: '/v1/webhook_endpoints',
    handler: 'webhooks/create-endpoint',
    summary: 'Register a webhook endpoint of the tenant; the answer carries its signing secret, once',
    description: 'What `url` may be depends on the caller: an endpoint created with a sandbox credential is a sandbox endpoint and may use http (and reach loopback where the deployment allows it); any other is live and takes https only.',
    tags,
    access: manage,
    request: { body: s.endpointCreate },
    response: { status: 201, body: s.endpointWithSecret, description: 'The endpoint with its secret (never shown again).' },
    errors: [],
    tables,
  }),
  listWebhookEndpoints: defineRoute({
    ...wallet,
    operationId: 'listWebhookEndpoints',
    method: 'GET',
    path: '/v1/webhook_endpoints',
    handler: 'webhooks/list-endpoints',
    summary: "The tenant's live webhook endpoints (at most 16), newest first, without secrets",
    tags,
    access: read,
    request: {},
    response: { status: 200, body: z.array(s.endpoint), description: 'Every live endpoint of the tenant, as a JSON array (spec part 4 item 22): no paging.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  deleteWebhookEndpoint: defineRoute({
    ...wallet,
    operationId: 'deleteWebhookEndpoint',
    method: 'DELETE',
    path: '/v1/webhook_endpoints/{endpointId}',
    handler: 'webhooks/delete-endpoint',
    summary: 'Delete a webhook endpoint of the tenant: its secret is erased and its pending retries stop',
    tags,
    access: manage,
    request: { params: z.object({ endpointId: uuid }) },
    response: { status: 200, body: s.endpoint, description: 'The endpoint, status deleted.' },
    errors: ['not_found'],
    tables,
  }),
  createClientWebhookEndpoint: defineRoute({
    ...wallet,
    operationId: 'createClientWebhookEndpoint',
    method: 'POST',
    path: '/v1/clients/{clientId}/webhook_endpoints',
    handler: 'webhooks/create-client-endpoint',
    summary: "Register a merchant's webhook endpoint (product.*, order.*, inventory.*, import.* of that client only)",
    description: 'What `url` may be depends on the caller: an endpoint created with a sandbox credential is a sandbox endpoint and may use http (and reach loopback where the deployment allows it); any other is live and takes https only.',
    tags,
    access: merchantManage,
    request: { params: z.object({ clientId: uuid }), body: s.endpointCreate },
    response: { status: 201, body: s.endpointWithSecret, description: 'The endpoint with its secret (never shown again).' },
    errors: [...clientErrors],
    tables,
  }),
  listClientWebhookEndpoints: defineRoute({
    ...wallet,
    operationId: 'listClientWebhookEndpoints',
    method: 'GET',
    path: '/v1/clients/{clientId}/webhook_endpoints',
    handler: 'webhooks/list-client-endpoints',
    summary: "A merchant's webhook endpoints, newest first, without secrets",
    tags,
    access: merchantRead,
    request: { params: z.object({ clientId: uuid }), query: s.pageQuery },
    response: { status: 200, body: page(s.endpoint), description: 'A page of endpoints.' },
    errors: [...clientErrors],
    tables: { wallet: 'RO' },
  }),
  deleteClientWebhookEndpoint: defineRoute({
    ...wallet,
    operationId: 'deleteClientWebhookEndpoint',
    method: 'DELETE',
    path: '/v1/clients/{clientId}/webhook_endpoints/{endpointId}',
    handler: 'webhooks/delete-client-endpoint',
    summary: "Delete a merchant's webhook endpoint: deliveries to it stop",
    tags,
    access: merchantManage,
    request: { params: z.object({ clientId: uuid, endpointId: uuid }) },
    response: { status: 200, body: s.endpoint, description: 'The endpoint, status deleted.' },
    errors: [...clientErrors, 'not_found'],
    tables,
  }),
  listClientWebhookDeliveries: defineRoute({
    ...wallet,
    operationId: 'listClientWebhookDeliveries',
    method: 'GET',
    path: '/v1/clients/{clientId}/webhook_deliveries',
    handler: 'webhooks/list-client-deliveries',
    summary: "Delivery attempts to a merchant's endpoints, newest first",
    tags,
    access: merchantRead,
    request: { params: z.object({ clientId: uuid }), query: s.pageQuery },
    response: { status: 200, body: page(s.deliveryAttempt), description: 'A page of delivery attempts.' },
    errors: [...clientErrors],
    tables: { wallet: 'RO' },
  }),
  listWebhookDeliveries: defineRoute({
    ...wallet,
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhook_deliveries',
    handler: 'webhooks/list-deliveries',
    summary: "Delivery attempts to the tenant's endpoints, newest first (kept 30 days)",
    tags,
    access: read,
    request: { query: s.pageQuery },
    response: { status: 200, body: page(s.deliveryAttempt), description: 'A page of delivery attempts.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  listWebhookEvents: defineRoute({
    ...wallet,
    operationId: 'listWebhookEvents',
    method: 'GET',
    path: '/v1/webhook_events',
    handler: 'webhooks/list-events',
    summary: "The tenant's events (merchants' included), newest first, by type and creation time (kept 30 days)",
    tags,
    access: read,
    request: { query: s.eventsQuery },
    // The generic envelope here; the manifest documents it typed per event type (./documented-routes.ts).
    response: { status: 200, body: page(s.event), description: 'A page of event envelopes, as delivered.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  rotateWebhookEndpointSecret: defineRoute({
    ...wallet,
    ...rotation,
    operationId: 'rotateWebhookEndpointSecret',
    path: '/v1/webhook_endpoints/{endpointId}/rotate_secret',
    handler: 'webhooks/rotate-endpoint-secret',
    summary: 'Give an endpoint a new signing secret; the old one keeps signing beside it for the overlap (default 24 h)',
    access: manage,
    request: { ...rotation.request, params: endpointParams },
    errors: ['not_found', ...idempotent],
  }),
  rotateClientWebhookEndpointSecret: defineRoute({
    ...wallet,
    ...rotation,
    operationId: 'rotateClientWebhookEndpointSecret',
    path: '/v1/clients/{clientId}/webhook_endpoints/{endpointId}/rotate_secret',
    handler: 'webhooks/rotate-client-endpoint-secret',
    summary: "Give a merchant's endpoint a new signing secret; the old one keeps signing beside it for the overlap",
    access: merchantManage,
    request: { ...rotation.request, params: clientEndpointParams },
    errors: [...clientErrors, 'not_found', ...idempotent],
  }),
  recoverWebhookEndpoint: defineRoute({
    ...wallet,
    ...recovery,
    operationId: 'recoverWebhookEndpoint',
    path: '/v1/webhook_endpoints/{endpointId}/recover',
    handler: 'webhooks/recover-endpoint',
    summary: 'Enable an endpoint again and send it, once each and oldest first, the events of a window it did not get',
    access: manage,
    request: { ...recovery.request, params: endpointParams },
    errors: ['not_found'],
  }),
  recoverClientWebhookEndpoint: defineRoute({
    ...wallet,
    ...recovery,
    operationId: 'recoverClientWebhookEndpoint',
    path: '/v1/clients/{clientId}/webhook_endpoints/{endpointId}/recover',
    handler: 'webhooks/recover-client-endpoint',
    summary: "Enable a merchant's endpoint again and send it the events of a window it did not get",
    access: merchantManage,
    request: { ...recovery.request, params: clientEndpointParams },
    errors: [...clientErrors, 'not_found'],
  }),
  getWebhookEndpointStats: defineRoute({
    ...wallet,
    ...adminLane,
    operationId: 'getWebhookEndpointStats',
    method: 'GET',
    path: '/v1/webhook_endpoints/{endpointId}/stats',
    handler: 'webhooks/get-endpoint-stats',
    summary: "An endpoint's attempts, successes, failures and latency percentiles over the last 24 h",
    tags,
    access: read,
    request: { params: endpointParams },
    response: { status: 200, body: s.endpointStats, description: 'Counts and latency of the current hour and the 24 before it.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  redeliverWebhookEvent: defineRoute({
    ...wallet,
    operationId: 'redeliverWebhookEvent',
    method: 'POST',
    path: '/v1/webhook_events/{eventId}/redeliver',
    handler: 'webhooks/redeliver-event',
    summary: 'Send an event again, one attempt per endpoint, signed at sending time (one endpoint, or all that receive it)',
    tags,
    access: manage,
    request: { params: z.object({ eventId: uuid }), body: s.redeliverRequest },
    response: { status: 202, body: s.redeliveryAccepted, description: 'The deliveries queued; their attempts appear in GET /v1/webhook_deliveries.' },
    errors: ['not_found'],
    tables,
  }),
};
