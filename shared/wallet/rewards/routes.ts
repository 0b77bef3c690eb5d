import * as z from '../../kernel/zod';
import { defineRoute, idempotencyRequired, type Access, idempotencyOptional } from '../../http/route';
import { page, uuid } from '../../http/schemas';
import * as s from './schemas';

/**
 * Rewards on the wallet API (spec part 4 item 15, docs/rewards.md): a client's reward rules
 * (authority over the client), the tenant's points settings, a user's rewards and conversion, a
 * merchant's marketing funds. The writes and a user's rewards (its points balance) call the ledger;
 * the rules and settings are WalletTable reads.
 */

const operators = ['api_key', 'tenant_staff', 'partner_admin'] as const;
const users = ['api_key', 'tenant_staff', 'user_token', 'idp_user'] as const;
const wallet = { api: 'wallet', tags: ['rewards'] } as const;
const tables = { wallet: 'RW' } as const;
const callsLedger = ['callsLedger'] as const;
/** Bulkheads share one pool (shared/http/bulkheads.ts): rewards administration takes a narrow lane. */
const narrow = { function: { maxConcurrency: 2 } } as const;
const clientManage: Access = { principals: operators, scopes: ['rewards:manage', 'clients:manage'], boundKeys: true };
const clientRead: Access = { principals: operators, scopes: ['rewards:read', 'rewards:manage', 'clients:manage'], boundKeys: true };
const authority = ['client_not_found', 'not_client_member'] as const;

export const rewardRoutes = {
  createRewardRule: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'createRewardRule',
    method: 'POST',
    path: '/v1/clients/{clientId}/reward_rules',
    handler: 'rewards/create-rule',
    summary: 'Create a cashback or accrual rule in a free slot (client, offering or none, kind)',
    description: '`caps` apply to cashback rules only, and `ends_at` must follow `starts_at`.',
    access: clientManage,
    request: { params: z.object({ clientId: uuid }), body: s.ruleCreate },
    response: { status: 201, body: s.rule, description: 'The rule.' },
    errors: [...authority, 'offering_not_found', 'rule_exists'],
    idempotency: idempotencyOptional(),
    tables,
    capabilities: callsLedger,
  }),
  listRewardRules: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'listRewardRules',
    method: 'GET',
    path: '/v1/clients/{clientId}/reward_rules',
    handler: 'rewards/list-rules',
    summary: "The client's reward rules, newest first",
    access: clientRead,
    request: { params: z.object({ clientId: uuid }), query: s.ruleListQuery },
    response: { status: 200, body: page(s.rule), description: 'A page of rules.' },
    errors: [...authority],
    tables: { wallet: 'RO' },
  }),
  disableRewardRule: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'disableRewardRule',
    method: 'POST',
    path: '/v1/clients/{clientId}/reward_rules/{ruleId}/disable',
    handler: 'rewards/disable-rule',
    summary: 'Disable a rule: it earns nothing more and its slot is free',
    access: clientManage,
    request: { params: z.object({ clientId: uuid, ruleId: uuid }) },
    response: { status: 200, body: s.rule, description: 'The rule, disabled.' },
    errors: [...authority, 'not_found'],
    idempotency: idempotencyOptional(),
    tables,
    capabilities: callsLedger,
  }),
  getRewardSettings: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'getRewardSettings',
    method: 'GET',
    path: '/v1/rewards/settings',
    handler: 'rewards/get-settings',
    summary: "The tenant's points commodity and conversion rate",
    access: { principals: ['api_key', 'tenant_staff'], scopes: ['rewards:read', 'rewards:manage'] },
    request: {},
    response: { status: 200, body: s.settings, description: 'The settings.' },
    errors: ['not_found'],
    tables: { wallet: 'RO' },
  }),
  putRewardSettings: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'putRewardSettings',
    method: 'PUT',
    path: '/v1/rewards/settings',
    handler: 'rewards/put-settings',
    summary: "Set the tenant's points commodity (once) and conversion rate: `points` points convert to `cash` minor units",
    access: { principals: ['api_key', 'tenant_staff'], scopes: ['rewards:manage'] },
    request: { body: s.settingsPut },
    response: { status: 200, body: s.settings, description: 'The settings.' },
    errors: [],
    tables,
    capabilities: callsLedger,
  }),
  getUserRewards: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'getUserRewards',
    method: 'GET',
    path: '/v1/users/{userId}/rewards',
    handler: 'rewards/get-user-rewards',
    summary: "A user's points balance, cashback earned and reward history (a user token: its own)",
    access: { principals: users, scopes: ['rewards:read'] },
    request: { params: z.object({ userId: uuid }) },
    response: { status: 200, body: s.rewards, description: "The user's rewards." },
    errors: ['user_not_found'],
    tables: { wallet: 'RO' },
    capabilities: callsLedger,
  }),
  convertPoints: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'convertPoints',
    method: 'POST',
    path: '/v1/users/{userId}/rewards/convert',
    handler: 'rewards/convert-points',
    summary: "Convert points to cash at the tenant's rate, in one posting of two balanced pairs",
    access: { principals: users, scopes: ['rewards:convert'] },
    request: { params: z.object({ userId: uuid }), body: s.convertBody },
    response: { status: 201, body: s.conversion, description: 'The conversion, with the rate it used.' },
    errors: ['user_not_found', 'insufficient_funds', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables,
    capabilities: callsLedger,
  }),
  fundMarketing: defineRoute({
    ...wallet,
    ...narrow,
    operationId: 'fundMarketing',
    method: 'POST',
    path: '/v1/merchants/{merchantId}/marketing_funds',
    handler: 'rewards/fund-marketing',
    summary: "Fund a merchant's marketing account: from its settled proceeds, which pays its cashback",
    access: { principals: ['api_key', 'tenant_staff'], scopes: ['merchants:write'] },
    request: { params: z.object({ merchantId: uuid }), body: s.marketingFundsBody },
    response: { status: 201, body: s.marketingFunds, description: 'The funding.' },
    errors: ['not_found', 'insufficient_funds', 'idempotency_key_reuse', 'idempotency_in_flight', 'service_unavailable'],
    idempotency: idempotencyRequired(255),
    tables,
    capabilities: callsLedger,
  }),
};
