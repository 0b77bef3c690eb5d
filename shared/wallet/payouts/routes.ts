import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, type Access } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import { SANDBOX_SIGNATURE_HEADER } from '../sandbox-delivery';
import * as s from './schemas';
import { tenantCurrency } from '../principals';

/**
 * Payouts on the wallet API (docs/payouts.md): a merchant's settled money out through a payout
 * rail, and the rails' signed inbound webhooks. A key bound to a client acts for its own
 * merchant only (checked in the services: 404 for any other).
 */

const operators = ['api_key', 'tenant_staff', 'partner_admin'] as const;
const wallet = { api: 'wallet', tags: ['payouts'] } as const;
const tables = { wallet: 'RW' } as const;
const callsLedger = ['callsLedger'] as const;
/** Bulkheads share one pool (shared/http/bulkheads.ts): payouts take narrow lanes. */
const narrow = { function: { maxConcurrency: 2 } } as const;
const read: Access = { principals: operators, scopes: ['merchants:read', 'merchants:write'], boundKeys: true };
const write: Access = { principals: operators, scopes: ['merchants:write'], boundKeys: true };

export const payoutRoutes = {
  createPayout: defineRoute({
    ...wallet,
    function: { maxConcurrency: 4 },
    operationId: 'createPayout',
    method: 'POST',
    path: '/v1/payouts',
    handler: 'payouts/create-payout',
    summary: "Pay out a merchant's settled money, through a payout rail: amount + the payout fee are held at once, paid or released when the rail confirms",
    description: `${tenantCurrency} The sandbox rail takes sandbox credentials only, and \`sandbox_outcome\` is for it alone.`,
    access: write,
    request: { body: s.payoutCreate },
    response: { status: 201, body: s.payout, description: 'The payout, `pending` until the rail confirms.' },
    errors: ['not_found', 'insufficient_funds', 'account_frozen', 'account_closed', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables,
    capabilities: callsLedger,
    // The sandbox rail's confirmation is queued (shared/wallet/payouts/sandbox.ts).
    sendsTo: ['sandboxPayoutRail'],
  }),
  listPayouts: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'listPayouts',
    method: 'GET',
    path: '/v1/payouts',
    handler: 'payouts/list-payouts',
    summary: "The tenant's payouts, newest first, optionally of one merchant and in one status",
    access: read,
    request: { query: s.payoutListQuery },
    response: { status: 200, body: page(s.payout), description: 'A page of payouts.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  getPayout: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'getPayout',
    method: 'GET',
    path: '/v1/payouts/{payoutId}',
    handler: 'payouts/get-payout',
    summary: 'Read a payout',
    access: read,
    request: { params: z.object({ payoutId: uuid }) },
    response: { status: 200, body: s.payout, description: 'The payout.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  receiveRailWebhook: defineRoute({
    ...wallet,
    function: { maxConcurrency: 4 },
    operationId: 'receiveRailWebhook',
    method: 'POST',
    path: '/v1/payout_rail_webhooks/{rail}',
    handler: 'payouts/receive-rail-webhook',
    summary: "Receive a payout rail's notification: its signed word on a payout's outcome (no bearer: the signature authenticates it)",
    access: 'public',
    request: {
      params: z.object({ rail: s.railName }),
      body: s.railWebhookBody,
      headers: [
        {
          name: SANDBOX_SIGNATURE_HEADER,
          description: "The rail's signature of the raw body, `t=<unix seconds>,v1=<hex HMAC-SHA256>` (the sandbox rail's header; a real rail adapter names its own, see docs/payouts.md).",
          required: true,
        },
      ],
    },
    response: { status: 200, body: s.railWebhookAck, description: 'Accepted (also for a duplicate delivery, which changes nothing).' },
    errors: ['unauthenticated', 'not_found', 'conflict', 'idempotency_key_reuse', 'service_unavailable'],
    tables,
    capabilities: callsLedger,
  }),
};
