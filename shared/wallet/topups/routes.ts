import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, type Access, idempotencyOptional } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import { SANDBOX_SIGNATURE_HEADER } from '../sandbox-delivery';
import * as s from './schemas';
import { actingUserField, tenantCurrency, userFilter } from '../principals';

/**
 * Top-up routes on the wallet API (spec part 4 items 18 and 23): gateways, push devices, top-ups,
 * the operator's resolution of an amount mismatch, and the processors' inbound webhooks.
 *
 * Every write that admits IdP users calls the ledger and writes the table, so its credential hook
 * provisions an IdP user (and its cash account) on first contact before the service runs; the
 * reads hold read grants only and queue a first contact (shared/wallet/auth/credential-queues.ts).
 */

const wallet = { api: 'wallet' } as const;
const writes = { wallet: 'RW' } as const;
/** Tenant principals acting for the tenant or for one user (a user token reads only its own user). */
const tenantOrUser = (scopes: string[]): Access => ({ principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user'], scopes });

export const topupRoutes = {
  listTopupGateways: defineRoute({
    ...wallet,
    operationId: 'listTopupGateways',
    method: 'GET',
    path: '/v1/topup_gateways',
    handler: 'topups/list-gateways',
    summary: "The top-up gateways: those configured for the tenant's currency, with their payment flow",
    tags: ['topups'],
    access: tenantOrUser(['topups:read', 'topups:write']),
    request: {},
    response: { status: 200, body: s.topupGateways, description: 'The gateways a top-up may name.' },
    errors: ['tenant_not_found'],
    tables: { wallet: 'RO' },
  }),
  registerDevice: defineRoute({
    ...wallet,
    operationId: 'registerDevice',
    method: 'POST',
    path: '/v1/devices',
    handler: 'topups/register-device',
    summary: "Register a device's push token for a user (a user token registers its own user's)",
    description: actingUserField('user_id'),
    tags: ['devices'],
    // topups:write, not users:write: IdP users register their own devices and their fixed scope set has no users:write.
    access: { principals: ['api_key', 'user_token', 'idp_user'], scopes: ['topups:write'] },
    request: { body: s.deviceCreate },
    response: {
      status: 201,
      body: s.device,
      description: 'The new device.',
      also: [{ status: 200, description: 'The token was registered before: its device (moved to this user if another had it).' }],
    },
    errors: ['user_not_found'],
    idempotency: idempotencyOptional(),
    tables: writes,
    capabilities: ['callsLedger'],
  }),
  createTopup: defineRoute({
    ...wallet,
    operationId: 'createTopup',
    method: 'POST',
    path: '/v1/topups',
    handler: 'topups/create-topup',
    summary: "Start a top-up: the processor's intent, to be confirmed by its webhook",
    description: `${actingUserField('user_id')} ${tenantCurrency} The sandbox gateway takes sandbox credentials only, and \`sandbox_outcome\` is for it alone.`,
    tags: ['topups'],
    access: tenantOrUser(['topups:write']),
    request: { body: s.topupCreate },
    response: { status: 201, body: s.topupCreated, description: 'The pending top-up with what the client needs to pay.' },
    errors: ['user_not_found', 'tenant_not_found', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(),
    tables: writes,
    capabilities: ['callsLedger'],
    // The sandbox processor's confirmation is queued (shared/wallet/topups/sandbox.ts).
    sendsTo: ['sandboxProcessor'],
  }),
  listTopups: defineRoute({
    ...wallet,
    operationId: 'listTopups',
    method: 'GET',
    path: '/v1/topups',
    handler: 'topups/list-topups',
    summary: "The tenant's top-ups, newest first, optionally of one user (a user token sees only its own)",
    description: userFilter,
    tags: ['topups'],
    access: tenantOrUser(['topups:read']),
    request: { query: s.topupListQuery },
    response: { status: 200, body: page(s.topup), description: 'A page of top-ups.' },
    errors: ['user_not_found'],
    tables: { wallet: 'RO' },
  }),
  getTopup: defineRoute({
    ...wallet,
    operationId: 'getTopup',
    method: 'GET',
    path: '/v1/topups/{topupId}',
    handler: 'topups/get-topup',
    summary: 'Read a top-up (a user token reads only its own)',
    tags: ['topups'],
    access: tenantOrUser(['topups:read']),
    request: { params: z.object({ topupId: uuid }) },
    response: { status: 200, body: s.topup, description: 'The top-up.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  resolveTopup: defineRoute({
    ...wallet,
    operationId: 'resolveTopup',
    method: 'POST',
    path: '/v1/topups/{topupId}/resolve',
    handler: 'topups/resolve-topup',
    summary: 'Resolve an amount mismatch: credit the confirmed amount, or mark the top-up refunded (audited)',
    tags: ['topups'],
    access: { principals: ['api_key', 'tenant_staff'], scopes: ['topups:write'] },
    request: { params: z.object({ topupId: uuid }), body: s.topupResolve },
    response: { status: 200, body: s.topup, description: 'The top-up after the resolution.' },
    errors: ['not_found', 'invalid_transition', 'idempotency_key_reuse', 'idempotency_in_flight', 'account_frozen', 'account_closed', 'service_unavailable'],
    idempotency: idempotencyRequired(),
    tables: writes,
    capabilities: ['callsLedger'],
  }),
  receiveProcessorWebhook: defineRoute({
    ...wallet,
    operationId: 'receiveProcessorWebhook',
    method: 'POST',
    path: '/v1/processor_webhooks/{gateway}',
    handler: 'topups/receive-webhook',
    summary: "Receive a processor's notification: its signed word on a top-up's outcome (no bearer: the signature authenticates it)",
    tags: ['topups'],
    access: 'public',
    request: {
      params: z.object({ gateway: s.gatewayName }),
      body: s.processorWebhookBody,
      headers: [
        {
          name: SANDBOX_SIGNATURE_HEADER,
          description:
            'The processor\'s signature of the raw body, `t=<unix seconds>,v1=<hex HMAC-SHA256>` (the sandbox processor\'s header; a real processor adapter names its own, see docs/topups.md).',
          required: true,
        },
      ],
    },
    response: { status: 200, body: s.processorWebhookAck, description: 'Accepted (also for a duplicate delivery, which changes nothing).' },
    errors: ['unauthenticated', 'not_found', 'conflict', 'idempotency_key_reuse', 'account_frozen', 'account_closed', 'service_unavailable'],
    tables: writes,
    capabilities: ['callsLedger'],
  }),
};
