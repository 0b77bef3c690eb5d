import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, type Access, idempotencyOptional } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';
import { userFilter } from '../principals';

/**
 * Subscriptions on the wallet API (spec part 4 item 14, docs/subscriptions.md). Subscribing takes
 * a consumer token (a user token or an IdP token); everything else answers 403
 * consumer_token_required. Managing takes the subscriber's own token or the tenant's credentials.
 * The writes may provision an IdP user or charge, so they call the ledger; the reads read WalletTable only.
 */

const manage: Access = { principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user'], scopes: ['subscriptions:write'] };
const read: Access = { principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user'], scopes: ['subscriptions:read', 'subscriptions:write'] };

const wallet = { api: 'wallet', tags: ['subscriptions'] } as const;
const tables = { wallet: 'RW' } as const;
const callsLedger = ['callsLedger'] as const;
/** Bulkheads share one pool (shared/http/bulkheads.ts): management takes a narrow lane. */
const narrow = { function: { maxConcurrency: 2 } } as const;
const subscriptionParams = z.object({ subscriptionId: uuid });

export const subscriptionRoutes = {
  subscribe: defineRoute({
    ...wallet,
    function: { maxConcurrency: 4 },
    operationId: 'subscribe',
    method: 'POST',
    path: '/v1/explore/offerings/{offeringId}/subscribe',
    handler: 'subscriptions/subscribe',
    summary: 'Subscribe to a plan: amount and interval from the catalog, the commission fixed now, the first period charged at once',
    access: { principals: ['user_token', 'idp_user'], scopes: ['subscriptions:write'], wrongPrincipal: 'consumer_token_required' },
    request: { params: z.object({ offeringId: uuid }) },
    response: { status: 201, body: s.subscription, description: 'The subscription, its first period charged.' },
    errors: ['offering_not_found', 'not_a_plan', 'insufficient_funds', 'account_frozen', 'account_closed', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(200),
    tables,
    capabilities: callsLedger,
  }),
  listSubscriptions: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'listSubscriptions',
    method: 'GET',
    path: '/v1/subscriptions',
    handler: 'subscriptions/list-subscriptions',
    summary: "The tenant's subscriptions (a consumer: its own), newest first; by user, merchant and status",
    description: userFilter,
    access: read,
    request: { query: s.subscriptionListQuery },
    response: { status: 200, body: page(s.subscription), description: 'A page of subscriptions.' },
    errors: ['user_not_found'],
    tables: { wallet: 'RO' },
  }),
  getSubscription: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'getSubscription',
    method: 'GET',
    path: '/v1/subscriptions/{subscriptionId}',
    handler: 'subscriptions/get-subscription',
    summary: 'Read a subscription',
    access: read,
    request: { params: subscriptionParams },
    response: { status: 200, body: s.subscription, description: 'The subscription.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  pauseSubscription: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'pauseSubscription',
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/pause',
    handler: 'subscriptions/pause-subscription',
    summary: 'Pause a subscription: nothing is charged until it is resumed',
    access: manage,
    request: { params: subscriptionParams },
    response: { status: 200, body: s.subscription, description: 'The subscription, paused.' },
    errors: ['not_found', 'invalid_transition'],
    idempotency: idempotencyOptional(),
    tables,
    capabilities: callsLedger,
  }),
  resumeSubscription: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'resumeSubscription',
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/resume',
    handler: 'subscriptions/resume-subscription',
    summary: 'Resume a paused subscription: the current period is charged at once, then billing goes on from now',
    access: manage,
    request: { params: subscriptionParams },
    response: { status: 200, body: s.subscription, description: 'The subscription after its charge (past_due if the charge was refused).' },
    errors: ['not_found', 'invalid_transition'],
    idempotency: idempotencyOptional(),
    tables,
    capabilities: callsLedger,
  }),
  cancelSubscription: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'cancelSubscription',
    method: 'POST',
    path: '/v1/subscriptions/{subscriptionId}/cancel',
    handler: 'subscriptions/cancel-subscription',
    summary: 'Cancel a subscription now (default), or at the end of the paid period',
    access: manage,
    request: { params: subscriptionParams, body: s.cancelBody },
    response: { status: 200, body: s.subscription, description: 'The subscription.' },
    errors: ['not_found', 'invalid_transition'],
    idempotency: idempotencyOptional(),
    tables,
    capabilities: callsLedger,
  }),
};
