import { expect } from 'vitest';
import type { Platform } from '../../local/platform';
import { gatewayOf } from '../../shared/http/gateways';
import type { PrincipalKind } from '../../shared/http/principal';
import type { AnyRoute } from '../../shared/http/route';
import { PARTNER_ADMIN_SCOPES, TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { uuidv7 } from '../../shared/kernel/ids';
import { clientOf } from './catalog';
import { fundUser } from './money';
import { ledgerConsumer } from './consumers';
import { apiKeyFor, idpTokenFor, staffToken, userTokenFor } from './credentials';
import { apiClient } from './http';
import { call } from './platform';
import { createTenant } from './tenants';

export const PRINCIPAL_KINDS: PrincipalKind[] = ['api_key', 'user_token', 'idp_user', 'platform_staff', 'vendor_support', 'partner_admin', 'tenant_staff', 'ledger_consumer'];

export interface World {
  tenantId: string;
  otherTenantId: string;
  /** A credential of each kind holding every scope the kind can hold. */
  full: Record<PrincipalKind, string>;
  /** Credentials of admitted kinds holding no scope. */
  none: Partial<Record<PrincipalKind, string>>;
  /** Ids of objects of another tenant or consumer, by path parameter name. */
  foreign: Record<string, string>;
}

/** The base URL of the platform's gateway that serves the route. */
export const baseOf = (platform: Platform, route: AnyRoute): string => platform.urls[gatewayOf(route.api)];

/** The route's path with each parameter filled from `ids` by its name, a fresh id where `ids` has none. */
export const pathOf = (route: AnyRoute, ids: Record<string, string>): string => route.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? uuidv7());

/** Two tenants, a credential of every principal kind for the first, and objects of the second. */
export async function buildWorld(platform: Platform): Promise<World> {
  const full = {} as Record<PrincipalKind, string>;
  const none: Partial<Record<PrincipalKind, string>> = {};
  const foreign: Record<string, string> = {};
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const api = apiClient(platform.urls.public);
  const [tenantId, otherTenantId] = [await createTenant(api, platformStaff, 'Tenant A'), await createTenant(api, platformStaff, 'Tenant B')];

  full.api_key = await apiKeyFor(platform, tenantId, [...TENANT_SCOPES]);
  none.api_key = await apiKeyFor(platform, tenantId, []);
  const externalId = `world-${uuidv7()}`;
  const user = await call(platform.urls.public, 'POST', '/v1/users', { token: full.api_key, body: { external_id: externalId } });
  expect(user.status, user.text).toBe(201);
  full.user_token = await userTokenFor(platform, full.api_key, externalId, [...TENANT_SCOPES]);
  // A user token holding only a scope no user-facing route takes.
  none.user_token = await userTokenFor(platform, full.api_key, externalId, ['fees:manage']);
  full.idp_user = await idpTokenFor(platform, { sub: `idp-${uuidv7()}`, tenantId });
  full.platform_staff = platformStaff;
  none.platform_staff = await staffToken(platform, { role: 'platform', scopes: [] });
  full.vendor_support = await staffToken(platform, { role: 'vendor_support' });
  full.partner_admin = await staffToken(platform, { role: 'partner_admin', tenantId });
  none.partner_admin = await staffToken(platform, { role: 'partner_admin', tenantId, scopes: [] });
  full.tenant_staff = await staffToken(platform, { role: 'tenant_staff', tenantId, scopes: [...TENANT_SCOPES, ...PARTNER_ADMIN_SCOPES] });
  none.tenant_staff = await staffToken(platform, { role: 'tenant_staff', tenantId, scopes: [] });
  full.ledger_consumer = (await ledgerConsumer(platform)).token;

  const otherKey = await apiKeyFor(platform, otherTenantId, [...TENANT_SCOPES]);
  foreign.userId = (await call(platform.urls.public, 'POST', '/v1/users', { token: otherKey, body: { external_id: `other-${uuidv7()}` } })).body.id;
  const foreignClient = await clientOf(platform.urls.public, otherKey);
  foreign.clientId = foreignClient.id;
  foreign.merchantId = foreignClient.merchantId;
  const offering = await call(platform.urls.public, 'POST', `/v1/clients/${foreign.clientId}/offerings`, {
    token: otherKey,
    body: { title: 'Foreign', status: 'published', variants: [{ sku: `F-${uuidv7().slice(-8)}`, amount: 100, inventory: { on_hand: 10 } }] },
  });
  expect(offering.status, offering.text).toBe(201);
  foreign.offeringId = offering.body.id;
  foreign.variantId = offering.body.variants[0].id;
  const shopper = await call(platform.urls.public, 'POST', '/v1/users', { token: otherKey, body: { external_id: `shopper-${uuidv7()}` } });
  const order = await call(platform.urls.public, 'POST', '/v1/orders', {
    token: otherKey,
    headers: { 'idempotency-key': uuidv7() },
    body: { client_id: foreign.clientId, user_id: shopper.body.id, lines: [{ variant_id: foreign.variantId, quantity: 1 }] },
  });
  expect(order.status, order.text).toBe(201);
  foreign.orderId = order.body.id;
  const plan = await call(platform.urls.public, 'POST', `/v1/clients/${foreign.clientId}/offerings`, {
    token: otherKey,
    body: { kind: 'plan', title: 'Foreign plan', amount: 100, interval: 'monthly', status: 'published' },
  });
  await fundUser(platform, otherTenantId, shopper.body.id, 1_000);
  // A transaction of the other tenant's ledger (the funding just posted).
  foreign.transactionId = (await call(platform.urls.public, 'GET', '/v1/transactions', { token: otherKey })).body.data[0].id;
  const subscriberToken = await userTokenFor(platform, otherKey, shopper.body.external_id, ['subscriptions:write']);
  const subscribed = await call(platform.urls.public, 'POST', `/v1/explore/offerings/${plan.body.id}/subscribe`, { token: subscriberToken, headers: { 'idempotency-key': uuidv7() } });
  expect(subscribed.status, subscribed.text).toBe(201);
  foreign.subscriptionId = subscribed.body.id;
  const payout = await call(platform.urls.public, 'POST', '/v1/payouts', {
    token: otherKey,
    headers: { 'idempotency-key': uuidv7() },
    body: { merchant_id: foreign.merchantId, amount: 10, currency: 'USD' },
  });
  expect(payout.status, payout.text).toBe(201);
  foreign.payoutId = payout.body.id;
  foreign.ruleId = (await call(platform.urls.public, 'POST', `/v1/clients/${foreign.clientId}/reward_rules`, { token: otherKey, body: { kind: 'cashback', params: { bps: 100 } } })).body.id;
  const otherStaff = await staffToken(platform, { role: 'tenant_staff', tenantId: otherTenantId });
  foreign.keyId = (await call(platform.urls.public, 'POST', '/v1/api_keys', { token: otherStaff, body: { env: 'sandbox', scopes: ['users:read'] } })).body.id;
  const engineer = await staffToken(platform, { role: 'vendor_support' });
  const engineerId = JSON.parse(Buffer.from(engineer.split('.')[1]!, 'base64url').toString()).sub as string;
  const otherAdmin = await staffToken(platform, { role: 'partner_admin', tenantId: otherTenantId });
  foreign.grantId = (
    await call(platform.urls.console, 'POST', '/v1/support_access_grants', {
      token: otherAdmin,
      body: { staff_id: engineerId, reason: 'incident', ticket_reference: 'T-1', expires_at: new Date(Date.now() + 3600_000).toISOString() },
    })
  ).body.id;
  // Loopback, and a type nothing here emits: nothing is ever delivered to it.
  const endpoint = await call(platform.urls.public, 'POST', '/v1/webhook_endpoints', { token: otherKey, body: { url: 'http://127.0.0.1:9/hooks', event_filters: ['credit_limit.changed'] } });
  expect(endpoint.status, endpoint.text).toBe(201);
  foreign.endpointId = endpoint.body.id;
  const otherConsumer = (await ledgerConsumer(platform)).token;
  foreign.ledgerId = (await call(platform.urls.ledger, 'POST', '/v1/ledgers', { token: otherConsumer, body: { name: 'other', commodity: 'USD' } })).body.id;
  for (const name of ['accountId', 'txnId', 'pendingId', 'staffId']) foreign[name] = uuidv7();
  foreign.key = 'some-key';
  foreign.tenantId = otherTenantId;
  // The world is still: the sandbox rail's confirmation of the payout (queued, a second later) has
  // landed and the stream workers are done, so tests comparing stored state see only their own.
  const deadline = Date.now() + 15_000;
  while (platform.queues.consumes('sandboxPayoutRail')) {
    await platform.queues.drain();
    const status = (await call(platform.urls.public, 'GET', `/v1/payouts/${foreign.payoutId}`, { token: otherKey })).body.status as string;
    if (status !== 'pending') break;
    if (Date.now() > deadline) throw new Error(`the world's payout is still ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await platform.streams?.settle();
  return { tenantId, otherTenantId, full, none, foreign };
}
