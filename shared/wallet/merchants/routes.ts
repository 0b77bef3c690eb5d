import * as z from '../../kernel/zod';
import { defineRoute, idempotencyOptional, type Access } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';

/**
 * Merchants on the wallet API (docs/payments.md): who payments pay. Creation opens the settlement
 * account in the ledger; the reads and the update touch WalletTable only. Documented with the
 * payments (tag), and served by functions/payments/ as before they had a folder of their own.
 */

const operator = (scopes: readonly string[]): Access => ({ principals: ['api_key', 'tenant_staff'], scopes });

const wallet = { api: 'wallet', tags: ['payments'] } as const;
const writes = { wallet: 'RW' } as const;
const callsLedger = ['callsLedger'] as const;

export const merchantRoutes = {
  createMerchant: defineRoute({
    ...wallet,
    operationId: 'createMerchant',
    method: 'POST',
    path: '/v1/merchants',
    handler: 'payments/create-merchant',
    summary: 'Create a merchant, with a settlement account in the tenant ledger',
    access: operator(['merchants:write']),
    request: { body: s.merchantCreate },
    response: { status: 201, body: s.merchant, description: 'The merchant.' },
    errors: ['tenant_not_found', 'service_unavailable'],
    idempotency: idempotencyOptional(),
    tables: writes,
    capabilities: callsLedger,
  }),
  listMerchants: defineRoute({
    ...wallet,
    operationId: 'listMerchants',
    method: 'GET',
    path: '/v1/merchants',
    handler: 'payments/list-merchants',
    summary: "The tenant's merchants, newest first",
    access: operator(['merchants:read', 'merchants:write']),
    request: { query: s.merchantListQuery },
    response: { status: 200, body: page(s.merchant), description: 'A page of merchants.' },
    errors: [],
    tables: { wallet: 'RO' },
  }),
  getMerchant: defineRoute({
    ...wallet,
    operationId: 'getMerchant',
    method: 'GET',
    path: '/v1/merchants/{merchantId}',
    handler: 'payments/get-merchant',
    summary: 'Read a merchant',
    access: operator(['merchants:read', 'merchants:write']),
    request: { params: z.object({ merchantId: uuid }) },
    response: { status: 200, body: s.merchant, description: 'The merchant.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  updateMerchant: defineRoute({
    ...wallet,
    function: { maxConcurrency: 2 },
    operationId: 'updateMerchant',
    method: 'PATCH',
    path: '/v1/merchants/{merchantId}',
    handler: 'payments/update-merchant',
    summary: "Change a merchant: its name, metadata or refund reserve (audited)",
    access: operator(['merchants:write']),
    request: { params: z.object({ merchantId: uuid }), body: s.merchantUpdate },
    response: { status: 200, body: s.merchant, description: 'The merchant.' },
    errors: ['not_found'],
    tables: writes,
  }),
};
