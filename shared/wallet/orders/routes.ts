import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, type Access } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';
import { actingUserField, userFilter } from '../principals';

/**
 * Orders on the wallet API (docs/orders.md). A shopper (user or IdP token) acts on its own orders;
 * an API key bound to a client reads and cancels that client's; the tenant's keys and staff act
 * on every order of the tenant. Creating, paying and canceling need payments:write; reading
 * payments:read (or payments:write). The writes call the ledger (and may provision an IdP user);
 * the reads read WalletTable only.
 */

const shoppers = ['api_key', 'tenant_staff', 'user_token', 'idp_user'] as const;
const write: Access = { principals: shoppers, scopes: ['payments:write'] };
const read: Access = { principals: shoppers, scopes: ['payments:read', 'payments:write'], boundKeys: true };
const clientWrite: Access = { ...write, boundKeys: true };

const wallet = { api: 'wallet', tags: ['orders'] } as const;
const tables = { wallet: 'RW' } as const;
const callsLedger = ['callsLedger'] as const;
/** Bulkheads: the pool of reserved concurrency is shared (shared/http/bulkheads.ts); reads and cancels take a narrower lane. */
const narrow = { function: { maxConcurrency: 4 } } as const;
const orderParams = z.object({ orderId: uuid });
const idempotent = ['idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'] as const;

export const orderRoutes = {
  createOrder: defineRoute({
    ...wallet,
    operationId: 'createOrder',
    method: 'POST',
    path: '/v1/orders',
    handler: 'orders/create-order',
    summary: "Open an order: its lines priced from the catalog, its stock reserved (all lines or none) until it is paid, canceled or expires",
    description: actingUserField('user_id'),
    access: write,
    request: { body: s.orderCreate },
    response: { status: 201, body: s.order, description: 'The order, `open`, with expires_at.' },
    errors: ['user_not_found', 'client_not_found', 'offering_not_found', 'out_of_stock', ...idempotent],
    idempotency: idempotencyRequired(255),
    tables,
    capabilities: callsLedger,
  }),
  listOrders: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'listOrders',
    method: 'GET',
    path: '/v1/orders',
    handler: 'orders/list-orders',
    summary: "List orders, newest first: the tenant's, a shopper's own, or a bound key's client's; by status, client or user",
    description: userFilter,
    access: read,
    request: { query: s.orderListQuery },
    response: { status: 200, body: page(s.order), description: 'A page of orders.' },
    errors: ['user_not_found', 'client_not_found'],
    tables: { wallet: 'RO' },
  }),
  getOrder: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'getOrder',
    method: 'GET',
    path: '/v1/orders/{orderId}',
    handler: 'orders/get-order',
    summary: 'Read an order',
    access: read,
    request: { params: orderParams },
    response: { status: 200, body: s.order, description: 'The order.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  payOrder: defineRoute({
    ...wallet,
    operationId: 'payOrder',
    method: 'POST',
    path: '/v1/orders/{orderId}/pay',
    handler: 'orders/pay-order',
    summary: "Pay an open order: one payment from the shopper's wallet, captured at once: its reserved units are sold",
    access: write,
    request: { params: orderParams },
    response: { status: 200, body: s.order, description: 'The order, `paid`, with payment_id.' },
    errors: ['not_found', 'invalid_transition', 'insufficient_funds', 'account_frozen', 'account_closed', ...idempotent],
    idempotency: idempotencyRequired(255),
    tables,
    capabilities: callsLedger,
  }),
  cancelOrder: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'cancelOrder',
    method: 'POST',
    path: '/v1/orders/{orderId}/cancel',
    handler: 'orders/cancel-order',
    summary: 'Cancel an open order: its reserved units are released',
    access: clientWrite,
    request: { params: orderParams },
    response: { status: 200, body: s.order, description: 'The order, `canceled`.' },
    errors: ['not_found', 'invalid_transition', ...idempotent],
    idempotency: idempotencyRequired(255),
    tables,
    capabilities: callsLedger,
  }),
};
