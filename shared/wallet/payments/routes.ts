import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, type Access } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';
import { actingUserField, tenantCurrency, userFilter } from '../principals';

/**
 * Payments and refunds on the wallet API (docs/payments.md; merchants: ../merchants/routes.ts). Every write calls the
 * ledger (and the credential hook may open an IdP user's cash account); the reads read WalletTable only.
 */

const operator = (scopes: readonly string[]): Access => ({ principals: ['api_key', 'tenant_staff'], scopes });
/** A user token or IdP token reaches only its own user's payments (checked in the services: 404). */
const userFacing = (scopes: readonly string[]): Access => ({ principals: ['api_key', 'tenant_staff', 'user_token', 'idp_user'], scopes });

const wallet = { api: 'wallet', tags: ['payments'] } as const;
const writes = { wallet: 'RW' } as const;
const callsLedger = ['callsLedger'] as const;
/** Capture and void: optional; without one the key derives from the payment and the action. */
const paymentParams = z.object({ paymentId: uuid });

export const paymentRoutes = {
  createPayment: defineRoute({
    ...wallet,
    operationId: 'createPayment',
    method: 'POST',
    path: '/v1/payments',
    handler: 'payments/create-payment',
    summary: 'Pay a merchant: capture at once (default) or authorize a hold to capture later (a user token pays only with its own money)',
    description: `${actingUserField('user_id')} ${tenantCurrency}`,
    access: userFacing(['payments:write']),
    request: { body: s.paymentCreate },
    response: { status: 201, body: s.payment, description: 'The payment, `captured` or `authorized`.' },
    errors: ['user_not_found', 'not_found', 'insufficient_funds', 'account_frozen', 'account_closed', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables: writes,
    capabilities: callsLedger,
  }),
  listPayments: defineRoute({
    ...wallet,
    operationId: 'listPayments',
    method: 'GET',
    path: '/v1/payments',
    handler: 'payments/list-payments',
    summary: "The tenant's payments, or one user's, newest first (a user token: its own)",
    description: userFilter,
    access: userFacing(['payments:read', 'payments:write']),
    request: { query: s.paymentListQuery },
    response: { status: 200, body: page(s.payment), description: 'A page of payments.' },
    errors: ['user_not_found'],
    tables: { wallet: 'RO' },
  }),
  getPayment: defineRoute({
    ...wallet,
    operationId: 'getPayment',
    method: 'GET',
    path: '/v1/payments/{paymentId}',
    handler: 'payments/get-payment',
    summary: 'Read a payment (a user token reads only its own)',
    access: userFacing(['payments:read', 'payments:write']),
    request: { params: paymentParams },
    response: { status: 200, body: s.payment, description: 'The payment.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  capturePayment: defineRoute({
    ...wallet,
    operationId: 'capturePayment',
    method: 'POST',
    path: '/v1/payments/{paymentId}/capture',
    handler: 'payments/capture-payment',
    summary: 'Capture an authorization once, whole or in part (the rest is released)',
    access: userFacing(['payments:write']),
    request: { params: paymentParams, body: s.paymentCapture },
    response: { status: 200, body: s.payment, description: 'The captured payment.' },
    errors: ['not_found', 'invalid_transition', 'insufficient_funds', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables: writes,
    capabilities: callsLedger,
  }),
  voidPayment: defineRoute({
    ...wallet,
    operationId: 'voidPayment',
    method: 'POST',
    path: '/v1/payments/{paymentId}/void',
    handler: 'payments/void-payment',
    summary: 'Void an authorization before capture: the hold is released',
    access: userFacing(['payments:write']),
    request: { params: paymentParams },
    response: { status: 200, body: s.payment, description: 'The voided payment.' },
    errors: ['not_found', 'invalid_transition', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables: writes,
    capabilities: callsLedger,
  }),
  createRefund: defineRoute({
    ...wallet,
    operationId: 'createRefund',
    method: 'POST',
    path: '/v1/refunds',
    handler: 'payments/create-refund',
    summary: 'Refund a captured payment, whole or in part; the merchant returns the amount, fees stay with the platform',
    access: operator(['refunds:write']),
    request: { body: s.refundCreate },
    response: { status: 201, body: s.refund, description: 'The completed refund.' },
    errors: ['not_found', 'invalid_transition', 'insufficient_funds', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables: writes,
    capabilities: callsLedger,
  }),
  listRefunds: defineRoute({
    ...wallet,
    operationId: 'listRefunds',
    method: 'GET',
    path: '/v1/refunds',
    handler: 'payments/list-refunds',
    summary: "The tenant's refunds, or one user's or one payment's, newest first (a user token: its own)",
    description: userFilter,
    access: userFacing(['payments:read']),
    request: { query: s.refundListQuery },
    response: { status: 200, body: page(s.refund), description: 'A page of refunds.' },
    errors: ['user_not_found'],
    tables: { wallet: 'RO' },
  }),
  getRefund: defineRoute({
    ...wallet,
    operationId: 'getRefund',
    method: 'GET',
    path: '/v1/refunds/{refundId}',
    handler: 'payments/get-refund',
    summary: 'Read a refund',
    description: 'A user token reads only the refunds of its own payments.',
    access: userFacing(['payments:read']),
    request: { params: z.object({ refundId: uuid }) },
    response: { status: 200, body: s.refund, description: 'The refund.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
};
