import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, idempotencyOptional, type Access } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';
import { actingUserField, userFilter } from '../principals';

/**
 * Money routes on the wallet API: balances, P2P transfers, the transactions view, tier limits and
 * credit lines (spec part 4 items 17 and 23, part 5 rules 1 and 2). Every one calls the ledger.
 */

/** A user token or IdP token reaches only its own user's money (spec part 5 rule 1): checked in the services. */
const userFacing = (scopes: readonly string[]): Access => ({ principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user', 'vendor_support'], scopes });
/** Tier configuration and credit lines refuse user tokens outright (spec part 5 rule 2): `forbidden`. */
const tenantOperator = (scope: string): Access => ({ principals: ['api_key', 'tenant_staff'], scopes: [scope] });

const wallet = { api: 'wallet', tags: ['money'] } as const;
const writes = { wallet: 'RW' } as const;
const reads = { wallet: 'RO' } as const;
// Writes that admit an IdP token call the ledger anyway, so their credential hook also opens a
// first-contact user's cash account; the reads queue the first contact (credential-queues.ts).
const callsLedger = ['callsLedger'] as const;
const userParams = z.object({ userId: uuid });

export const transferRoutes = {
  getUserBalances: defineRoute({
    ...wallet,
    operationId: 'getUserBalances',
    method: 'GET',
    path: '/v1/users/{userId}/balances',
    handler: 'transfers/get-balances',
    summary: "A user's balances: available, pending, posted and credit limit (a user token reads only its own)",
    access: userFacing(['balances:read']),
    request: { params: userParams },
    response: { status: 200, body: s.balances, description: "The balances of the user's cash account." },
    errors: ['user_not_found', 'service_unavailable'],
    tables: reads,
    capabilities: callsLedger,
  }),
  createTransfer: defineRoute({
    ...wallet,
    operationId: 'createTransfer',
    method: 'POST',
    path: '/v1/transfers',
    handler: 'transfers/create-transfer',
    summary: 'Send a P2P transfer; the sender pays the p2p fee on top of the amount (a user token sends only its own money)',
    description: `${actingUserField('from_user_id')} \`to_user_id\` must be another user than the sender.`,
    access: { principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user'], scopes: ['transfers:write'] },
    request: { body: s.transferCreate },
    response: { status: 201, body: s.transfer, description: 'The completed transfer; a retry with the same Idempotency-Key answers the same bytes.' },
    errors: ['user_not_found', 'insufficient_funds', 'limit_exceeded', 'account_frozen', 'account_closed', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables: writes,
    capabilities: callsLedger,
  }),
  getTransfer: defineRoute({
    ...wallet,
    operationId: 'getTransfer',
    method: 'GET',
    path: '/v1/transfers/{transferId}',
    handler: 'transfers/get-transfer',
    summary: 'Read a transfer (a user token reads only transfers it sent or received)',
    access: userFacing(['balances:read', 'transfers:write']),
    request: { params: z.object({ transferId: uuid }) },
    response: { status: 200, body: s.transfer, description: 'The transfer.' },
    errors: ['not_found'],
    tables: reads,
  }),
  listTransfers: defineRoute({
    ...wallet,
    operationId: 'listTransfers',
    method: 'GET',
    path: '/v1/transfers',
    handler: 'transfers/list-transfers',
    summary: "The tenant's transfers, or one user's sent and received, newest first (a user token: its own)",
    description: userFilter,
    access: userFacing(['balances:read', 'transfers:write']),
    request: { query: s.transferListQuery },
    response: { status: 200, body: page(s.transfer), description: 'A page of transfers.' },
    errors: ['user_not_found'],
    tables: reads,
  }),
  listTransactions: defineRoute({
    ...wallet,
    operationId: 'listWalletTransactions',
    method: 'GET',
    path: '/v1/transactions',
    handler: 'transfers/list-transactions',
    summary: "Ledger transactions, newest first: a user's own entries (user token, or user_id), else the tenant's (ledger:read)",
    description: `${userFilter} The scopes depend on the view too: one user's transactions need \`balances:read\`, the tenant's \`ledger:read\`.`,
    access: userFacing(['balances:read', 'ledger:read']),
    request: { query: s.transactionListQuery },
    response: { status: 200, body: page(s.walletTransaction), description: 'A page of transactions.' },
    errors: ['user_not_found', 'service_unavailable'],
    tables: reads,
    capabilities: callsLedger,
    function: { timeoutSeconds: 29 },
  }),
  getTransaction: defineRoute({
    ...wallet,
    operationId: 'getWalletTransaction',
    method: 'GET',
    path: '/v1/transactions/{transactionId}',
    handler: 'transfers/get-transaction',
    summary: "One ledger transaction of the tenant with its legs (ledger:read): what a payment, refund, payout or transfer's ledger_transaction_id names",
    description: "The tenant's view of one transaction, as in GET /v1/transactions. Another tenant's transaction is not found, as an absent one is.",
    access: { principals: ['api_key', 'tenant_staff', 'vendor_support'], scopes: ['ledger:read'] },
    request: { params: z.object({ transactionId: uuid }) },
    response: { status: 200, body: s.walletTransaction, description: 'The transaction and its legs.' },
    errors: ['transaction_not_found', 'service_unavailable'],
    tables: reads,
    capabilities: callsLedger,
    // A read people follow one at a time from a row (the dashboard's ledger links): half the wallet
    // default keeps the reserved-concurrency sum within the 800 a default account can reserve.
    function: { timeoutSeconds: 29, maxConcurrency: 4 },
  }),
  getLimits: defineRoute({
    ...wallet,
    operationId: 'getLimits',
    method: 'GET',
    path: '/v1/limits',
    handler: 'transfers/get-limits',
    summary: "The tenant's tier limits (P2P sent per UTC day and month)",
    access: tenantOperator('limits:manage'),
    request: {},
    response: { status: 200, body: s.limits, description: 'The limits; null is no limit.' },
    errors: [],
    tables: reads,
  }),
  setLimits: defineRoute({
    ...wallet,
    operationId: 'setLimits',
    method: 'PUT',
    path: '/v1/limits',
    handler: 'transfers/set-limits',
    summary: "Replace the tenant's tier limits (null or omitted: no limit); audited",
    access: tenantOperator('limits:manage'),
    request: { body: s.limitsSet },
    response: { status: 200, body: s.limits, description: 'The limits after the change.' },
    errors: ['service_unavailable'],
    tables: writes,
  }),
  getUserLimits: defineRoute({
    ...wallet,
    operationId: 'getUserLimits',
    method: 'GET',
    path: '/v1/users/{userId}/limits',
    handler: 'transfers/get-user-limits',
    summary: "A user's own tier limits, if any, and the limits that apply to it",
    access: tenantOperator('limits:manage'),
    request: { params: userParams },
    response: { status: 200, body: s.userLimits, description: "The user's limits." },
    errors: ['user_not_found'],
    tables: reads,
  }),
  setUserLimits: defineRoute({
    ...wallet,
    operationId: 'setUserLimits',
    method: 'PUT',
    path: '/v1/users/{userId}/limits',
    handler: 'transfers/set-user-limits',
    summary: "Set a user's own tier limits over the tenant's (p2p: null removes them); audited",
    access: tenantOperator('limits:manage'),
    request: { params: userParams, body: s.userLimitsSet },
    response: { status: 200, body: s.userLimits, description: "The user's limits after the change." },
    errors: ['user_not_found', 'service_unavailable'],
    tables: writes,
  }),
  setCreditLimit: defineRoute({
    ...wallet,
    operationId: 'setCreditLimit',
    method: 'POST',
    path: '/v1/users/{userId}/credit_limit',
    handler: 'transfers/set-credit-limit',
    summary: "Set a business user's credit line (the floor of its cash account below zero); audited, with credit_limit.changed",
    access: tenantOperator('credit:write'),
    request: { params: userParams, body: s.creditLimitSet },
    response: { status: 200, body: s.creditLimitResult, description: 'The new and the previous credit limit.' },
    errors: ['user_not_found', 'user_not_business', 'credit_limit_below_balance', 'account_frozen', 'account_closed', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    // Setting a limit is idempotent by nature (the spec gives a body only): the key is honoured, never required.
    idempotency: idempotencyOptional(255, 'operation'),
    tables: writes,
    capabilities: callsLedger,
  }),
};
