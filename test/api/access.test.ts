import { expectProblem } from '../support/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import type { PrincipalKind } from '../../shared/http/principal';
import { type ErrorCode } from '../../shared/kernel/errors';
import type { AnyRoute } from '../../shared/http/route';
import { uuidv7 } from '../../shared/kernel/ids';
import { routes } from '../../shared/routes';
import { call, startTestPlatform } from '../support/platform';
import { baseOf, buildWorld, pathOf, PRINCIPAL_KINDS, type World } from '../support/world';

/**
 * The access matrix of the whole manifest, table-driven: for every authenticated route, no
 * credential is 401; each principal kind the route does not admit gets the route's documented 403
 * code (401 for the other API's credential family); an admitted kind without the scope gets the
 * route's missing-scope code; and an id of another tenant's (or consumer's) object is a 404.
 * A route added without its entries below fails this file.
 */

let platform: Platform;
let world: World;

function twoLegs() {
  return [
    { account_id: uuidv7(), direction: 'debit', amount: 1, commodity: 'USD' },
    { account_id: uuidv7(), direction: 'credit', amount: 1, commodity: 'USD' },
  ];
}

/**
 * Path parameters of routes that answer 404 for another tenant's object, and a valid request for
 * each such route (the 404 must come from the lookup, not from validation).
 */
const foreignRequests: Record<string, { kind: PrincipalKind; body?: unknown; query?: string } | 'not-tenant-scoped'> = {
  getLedger: { kind: 'ledger_consumer' },
  getAccount: { kind: 'ledger_consumer' },
  updateAccount: { kind: 'ledger_consumer', body: { status: 'frozen' } },
  listAccountEntries: { kind: 'ledger_consumer' },
  openAccount: { kind: 'ledger_consumer', body: { owner_type: 'user', owner_id: uuidv7(), purpose: 'cash', commodity: 'USD' } },
  createPosting: { kind: 'ledger_consumer', body: { type: 't', legs: twoLegs() } },
  createPending: { kind: 'ledger_consumer', body: { type: 't', legs: twoLegs() } },
  getPending: { kind: 'ledger_consumer' },
  voidPending: { kind: 'ledger_consumer' },
  listTransactions: { kind: 'ledger_consumer' },
  getTransaction: { kind: 'ledger_consumer' },
  reverseTransaction: { kind: 'ledger_consumer' },
  getIdempotencyRecord: { kind: 'ledger_consumer' },
  closePeriod: { kind: 'ledger_consumer', body: { closed_through: '2026-01-01T00:00:00.000Z' } },
  getRollup: { kind: 'ledger_consumer' },
  listLedgerEvents: { kind: 'ledger_consumer' },
  getUser: { kind: 'api_key' },
  revokeApiKey: { kind: 'tenant_staff' },
  getTopup: { kind: 'api_key' },
  getMerchant: { kind: 'api_key' },
  updateMerchant: { kind: 'api_key', body: { name: 'Probe' } },
  getPayout: { kind: 'api_key' },
  getPayment: { kind: 'api_key' },
  capturePayment: { kind: 'api_key', body: {} },
  voidPayment: { kind: 'api_key' },
  deleteWebhookEndpoint: { kind: 'api_key' },
  redeliverWebhookEvent: { kind: 'api_key', body: {} },
  deleteClientWebhookEndpoint: { kind: 'tenant_staff' },
  createClientWebhookEndpoint: { kind: 'api_key', body: { url: 'http://127.0.0.1:9/hooks' } },
  listClientWebhookEndpoints: { kind: 'api_key' },
  listClientWebhookDeliveries: { kind: 'api_key' },
  rotateWebhookEndpointSecret: { kind: 'api_key', body: { overlap_seconds: 60 } },
  rotateClientWebhookEndpointSecret: { kind: 'tenant_staff', body: {} },
  recoverWebhookEndpoint: { kind: 'api_key', body: { since: new Date(Date.now() - 3_600_000).toISOString() } },
  recoverClientWebhookEndpoint: { kind: 'tenant_staff', body: { since: new Date(Date.now() - 3_600_000).toISOString() } },
  getWebhookEndpointStats: { kind: 'api_key' },
  getWebhookEndpoint: { kind: 'api_key' },
  updateWebhookEndpoint: { kind: 'api_key', body: { description: 'x' } },
  getClientWebhookEndpoint: { kind: 'api_key' },
  updateClientWebhookEndpoint: { kind: 'tenant_staff', body: { description: 'x' } },
  getRefund: { kind: 'api_key' },
  getClient: { kind: 'api_key' },
  approveClient: { kind: 'api_key' },
  suspendClient: { kind: 'api_key' },
  addClientMember: { kind: 'api_key', body: { staff_id: uuidv7() } },
  removeClientMember: { kind: 'api_key' },
  createOffering: { kind: 'api_key', body: { title: 'Tee' } },
  listOfferings: { kind: 'api_key' },
  getOffering: { kind: 'api_key' },
  updateOffering: { kind: 'api_key', body: { title: 'Tee' } },
  createVariant: { kind: 'api_key', body: { sku: 'X-1', amount: 1 } },
  updateVariant: { kind: 'api_key', body: { amount: 1 } },
  retireVariant: { kind: 'api_key' },
  changeStock: { kind: 'api_key', body: { delta: 1, reason: 'probe' } },
  listStockMovements: { kind: 'api_key' },
  importCatalog: { kind: 'api_key', body: { format: 'csv', content: 'x' } },
  getExploreClient: { kind: 'user_token' },
  getExploreOffering: { kind: 'idp_user' },
  getOrder: { kind: 'api_key' },
  payOrder: { kind: 'api_key' },
  cancelOrder: { kind: 'api_key' },
  subscribe: { kind: 'user_token' },
  getSubscription: { kind: 'api_key' },
  pauseSubscription: { kind: 'api_key' },
  resumeSubscription: { kind: 'api_key' },
  cancelSubscription: { kind: 'api_key', body: {} },
  createRewardRule: { kind: 'api_key', body: { kind: 'cashback', params: { bps: 100 } } },
  listRewardRules: { kind: 'api_key' },
  disableRewardRule: { kind: 'api_key' },
  getUserRewards: { kind: 'api_key' },
  convertPoints: { kind: 'api_key', body: { points: 1 } },
  fundMarketing: { kind: 'api_key', body: { amount: 1 } },
  // Moderation is platform staff's, across tenants.
  hideClient: 'not-tenant-scoped',
  unhideClient: 'not-tenant-scoped',
  getUserBalances: { kind: 'api_key' },
  getTransfer: { kind: 'api_key' },
  getWalletTransaction: { kind: 'api_key' },
  getUserLimits: { kind: 'api_key' },
  setUserLimits: { kind: 'api_key', body: { p2p: null } },
  setCreditLimit: { kind: 'api_key', body: { credit_limit: 0 } },
  resolveTopup: { kind: 'api_key', body: { action: 'refund' } },
  revokeSupportAccessGrant: { kind: 'partner_admin' },
  listSupportAccessGrantRequests: { kind: 'partner_admin' },
  // Platform routes name a tenant on purpose: platform staff see every tenant.
  getTenantHealth: 'not-tenant-scoped',
};

beforeAll(async () => {
  platform = await startTestPlatform();
  world = await buildWorld(platform);
});

afterAll(() => platform?.stop());

const authenticated = routes.filter((route) => route.access !== 'public');
const realmOf = (kind: PrincipalKind) => (kind === 'ledger_consumer' ? 'ledger' : 'wallet');
const send = (route: AnyRoute, token: string | undefined, body?: unknown, query = '') =>
  call(baseOf(platform, route), route.method, `${pathOf(route, world.foreign)}${query}`, {
    token,
    body: body ?? (route.request.body && route.method !== 'GET' ? {} : undefined),
    headers: route.idempotency ? { 'idempotency-key': uuidv7() } : {},
  });

describe.each(authenticated.map((route) => [`${route.method} ${route.path} (${route.api})`, route] as const))('%s', (_, route) => {
  const access = route.access as Exclude<AnyRoute['access'], 'public'>;
  const routeFamily = route.api === 'ledger' ? 'ledger' : 'wallet';

  it('refuses a request without a credential', async () => {
    expectProblem(await send(route, undefined), 'unauthenticated', 'no credential');
  });

  it('refuses each principal kind it does not admit with its documented code', async () => {
    for (const kind of PRINCIPAL_KINDS.filter((k) => !access.principals.includes(k))) {
      const expected: ErrorCode = realmOf(kind) !== routeFamily ? 'unauthenticated' : (access.wrongPrincipal ?? 'forbidden');
      expectProblem(await send(route, world.full[kind]), expected, kind);
    }
  });

  it('refuses an admitted kind that lacks the scope', async () => {
    if (access.scopes.length === 0) return;
    const kinds = access.principals.filter((k) => world.none[k] !== undefined);
    expect(kinds.length, 'a scope-less credential of an admitted kind').toBeGreaterThan(0);
    for (const kind of kinds) expectProblem(await send(route, world.none[kind]), access.missingScope ?? 'insufficient_scope', kind);
  });

  it("answers an id of another tenant's or consumer's object with 404", async () => {
    if (!route.path.includes('{')) return;
    const entry = foreignRequests[route.operationId];
    expect(entry, `foreignRequests entry for ${route.operationId}`).toBeDefined();
    if (entry === 'not-tenant-scoped' || entry === undefined) return;
    const result = await send(route, world.full[entry.kind], entry.body, entry.query);
    expect(result.status, `${route.operationId}: ${result.text}`).toBe(404);
  });
});
