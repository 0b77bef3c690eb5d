import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Platform } from '../../local/platform';
import { EXAMPLES_DIR, exampleFaults, OPENAPI_FILES, readExamples } from '../../scripts/openapi';
import type { GatewayName } from '../../shared/http/gateways';
import { buildOpenApi } from '../../shared/http/openapi/document';
import { uuidv7 } from '../../shared/kernel/ids';
import { routes } from '../../shared/routes';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { ledgerConsumer } from '../support/consumers';
import { apiKeyFor, staffToken } from '../support/credentials';
import { ExampleRecorder, inSchemaOrder, normalize, PLACEHOLDERS, shapeOf, sortedObject } from '../support/examples';
import { call, startTestPlatform } from '../support/platform';

/**
 * The OpenAPI documents' examples are the platform's own answers: this scenario calls the main
 * operations against the embedded platform (money paths first: users, top-ups, transfers,
 * payments with capture, void and refund, payouts, the ledger's postings; then webhook endpoints,
 * catalog and orders, subscriptions, rewards, and the most-used reads), records each operation's
 * first success, puts each response's fields in its schema's order and normalizes it
 * (test/support/examples.ts), so two runs write the same bytes.
 *
 * `npm run openapi:examples` runs this file with OPENAPI_EXAMPLES=write: it writes
 * docs/openapi/examples/<api>.json, which `npm run openapi` merges into the documents. In the
 * suite it writes nothing and holds the committed files to what the platform answers now: the same
 * operations, each example with the same shape (keys and value types; ids, times and list order
 * vary between runs), and every recorded example valid against its operation's schema.
 */

const WRITE = process.env.OPENAPI_EXAMPLES === 'write';

let platform: Platform;
let recorded: ReturnType<typeof normalize>;

const FILE_OF: Record<GatewayName, string> = Object.fromEntries(Object.entries(OPENAPI_FILES).map(([file, gateway]) => [gateway, file])) as Record<GatewayName, string>;

beforeAll(async () => {
  platform = await startTestPlatform();
  const rec = new ExampleRecorder(platform.urls);
  const key = () => ({ 'idempotency-key': uuidv7() });
  /** A call that must succeed with `status`; its answer's body. */
  const ok = async (gateway: GatewayName, method: string, path: string, status: number, options: { body?: unknown; token?: string; idempotent?: boolean } = {}) => {
    const headers = method === 'POST' && options.idempotent !== false ? key() : undefined;
    const result = await rec.call(gateway, method, path, { body: options.body, token: options.token, headers });
    expect(result.status, `${method} ${path}: ${result.text}`).toBe(status);
    return result.body;
  };
  const wallet = (method: string, path: string, status: number, body?: unknown, token = apiKey) => ok('public', method, path, status, { body, token });

  // The operator's steps: a tenant (platform staff), its API key.
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const tenant = await ok('public', 'POST', '/v1/tenants', 201, { token: platformStaff, body: { name: 'Example Wallet', currency: 'USD' } });
  let apiKey = await apiKeyFor(platform, tenant.id, [...TENANT_SCOPES]);
  const tenantStaff = await staffToken(platform, { role: 'tenant_staff', tenantId: tenant.id });
  await ok('public', 'POST', '/v1/api_keys', 201, { token: tenantStaff, body: { name: 'backend', env: 'sandbox', scopes: ['users:read', 'balances:read'] } });
  await ok('public', 'GET', '/v1/api_keys', 200, { token: tenantStaff });

  // Users, a top-up, a transfer, balances.
  const alice = await wallet('POST', '/v1/users', 201, { external_id: 'customer-alice' });
  const bob = await wallet('POST', '/v1/users', 201, { external_id: 'customer-bob' });
  await wallet('GET', `/v1/users/${alice.id}`, 200);
  await wallet('GET', '/v1/users?limit=2', 200);
  await wallet('POST', '/v1/auth/user_tokens', 201, { user_external_id: 'customer-alice', scopes: ['balances:read', 'transfers:write'] });
  await wallet('GET', '/v1/topup_gateways', 200);
  const topup = await wallet('POST', '/v1/topups', 201, { user_id: alice.id, amount: 10_000, currency: 'USD', sandbox_outcome: 'succeed' });
  // The sandbox processor confirms the top-up a moment later.
  await vi.waitFor(async () => expect((await call(platform.urls.public, 'GET', `/v1/topups/${topup.id}`, { token: apiKey })).body.status).toBe('succeeded'), { timeout: 15_000, interval: 100 });
  await wallet('GET', `/v1/topups/${topup.id}`, 200);
  await wallet('GET', '/v1/topups', 200);
  await wallet('PUT', '/v1/fee_plan', 200, { p2p: { bps: 150, flat: 10, min_fee: 10, max_fee: 500 } });
  await wallet('GET', '/v1/fee_plan', 200);
  await wallet('PUT', '/v1/limits', 200, { p2p: { daily_max: 500_000, monthly_max: 2_000_000 } });
  await wallet('GET', '/v1/limits', 200);
  await wallet('PUT', `/v1/users/${alice.id}/limits`, 200, { p2p: { daily_max: 100_000 } });
  await wallet('GET', `/v1/users/${alice.id}/limits`, 200);
  const transfer = await wallet('POST', '/v1/transfers', 201, { from_user_id: alice.id, to_user_id: bob.id, amount: 2_500, description: 'Dinner' });
  await wallet('GET', `/v1/transfers/${transfer.id}`, 200);
  await wallet('GET', '/v1/transfers', 200);
  await wallet('GET', `/v1/users/${alice.id}/balances`, 200);
  const business = await wallet('POST', '/v1/users', 201, { external_id: 'business-acme', kind: 'business', metadata: { crm_ref: 'ACME-7' } });
  await wallet('POST', `/v1/users/${business.id}/credit_limit`, 200, { credit_limit: 50_000 });

  // A merchant and its client, payments: authorize then capture, refund, void.
  const merchant = await wallet('POST', '/v1/merchants', 201, { name: 'Corner Books' });
  await wallet('PATCH', `/v1/merchants/${merchant.id}`, 200, { metadata: { region: 'eu-west' } });
  await wallet('GET', `/v1/merchants/${merchant.id}`, 200);
  await wallet('GET', '/v1/merchants', 200);
  const client = await wallet('POST', '/v1/clients', 201, { merchant_id: merchant.id, org_alias: 'corner-books', display_name: 'Corner Books', category: 'books' });
  await wallet('POST', `/v1/clients/${client.id}/approve`, 200);
  await wallet('GET', `/v1/clients/${client.id}`, 200);
  await wallet('GET', '/v1/clients', 200);
  const payment = await wallet('POST', '/v1/payments', 201, { user_id: alice.id, merchant_id: merchant.id, amount: 4_200, currency: 'USD', capture: false, description: 'Order 1042' });
  await wallet('POST', `/v1/payments/${payment.id}/capture`, 200, { amount: 4_000 });
  await wallet('GET', `/v1/payments/${payment.id}`, 200);
  const refund = await wallet('POST', '/v1/refunds', 201, { payment_id: payment.id, amount: 1_000, reason: 'damaged' });
  await wallet('GET', `/v1/refunds/${refund.id}`, 200);
  await wallet('GET', '/v1/refunds', 200);
  const held = await wallet('POST', '/v1/payments', 201, { user_id: alice.id, merchant_id: merchant.id, amount: 500, currency: 'USD', capture: false });
  await wallet('POST', `/v1/payments/${held.id}/void`, 200);
  await wallet('GET', '/v1/payments', 200);
  const posted = await wallet('GET', '/v1/transactions', 200);
  await wallet('GET', `/v1/transactions/${posted.data[0].id}`, 200);

  // Webhook endpoints (loopback, a type nothing here emits: nothing is delivered).
  const endpoint = await wallet('POST', '/v1/webhook_endpoints', 201, { url: 'http://127.0.0.1:9/hooks', event_filters: ['credit_limit.changed'], description: 'Backend' });
  await wallet('GET', `/v1/webhook_endpoints/${endpoint.id}`, 200);
  await wallet('PATCH', `/v1/webhook_endpoints/${endpoint.id}`, 200, { description: 'Backend (ledger events)' });
  await wallet('GET', '/v1/webhook_endpoints', 200);

  // Catalog, an order, a plan and a subscription, a reward rule.
  const offering = await wallet('POST', `/v1/clients/${client.id}/offerings`, 201, {
    title: 'Paperback',
    status: 'published',
    variants: [{ sku: 'PB-001', amount: 1_500, inventory: { on_hand: 10 } }],
  });
  await wallet('GET', `/v1/clients/${client.id}/offerings/${offering.id}`, 200);
  await wallet('GET', `/v1/clients/${client.id}/offerings`, 200);
  const order = await wallet('POST', '/v1/orders', 201, { client_id: client.id, user_id: bob.id, lines: [{ variant_id: offering.variants[0].id, quantity: 1 }] });
  await wallet('POST', `/v1/orders/${order.id}/pay`, 200);
  await wallet('GET', `/v1/orders/${order.id}`, 200);
  const abandoned = await wallet('POST', '/v1/orders', 201, { client_id: client.id, user_id: bob.id, lines: [{ variant_id: offering.variants[0].id, quantity: 2 }] });
  await wallet('POST', `/v1/orders/${abandoned.id}/cancel`, 200);
  await wallet('POST', `/v1/clients/${client.id}/offerings/${offering.id}/variants/${offering.variants[0].id}/stock`, 200, { delta: 3, reason: 'count' });
  await wallet('GET', '/v1/orders', 200);
  const plan = await wallet('POST', `/v1/clients/${client.id}/offerings`, 201, { kind: 'plan', title: 'Monthly box', amount: 900, interval: 'monthly', status: 'published' });
  const subscriber = await ok('public', 'POST', '/v1/auth/user_tokens', 201, { token: apiKey, body: { user_external_id: 'customer-alice', scopes: ['subscriptions:write'] } });
  const subscription = await ok('public', 'POST', `/v1/explore/offerings/${plan.id}/subscribe`, 201, { token: subscriber.token });
  await wallet('GET', `/v1/subscriptions/${subscription.id}`, 200);
  await wallet('GET', '/v1/subscriptions', 200);
  await wallet('POST', `/v1/subscriptions/${subscription.id}/pause`, 200);
  await wallet('POST', `/v1/subscriptions/${subscription.id}/resume`, 200);
  await wallet('POST', `/v1/subscriptions/${subscription.id}/cancel`, 200);
  await wallet('PUT', '/v1/rewards/settings', 200, { points_commodity: 'PTS', conversion_rate: { points: 100, cash: 1 } });
  await wallet('GET', '/v1/rewards/settings', 200);
  await wallet('POST', `/v1/clients/${client.id}/reward_rules`, 201, { kind: 'cashback', params: { bps: 100 } });
  await wallet('GET', `/v1/clients/${client.id}/reward_rules`, 200);

  // A payout of the merchant's balance.
  const payout = await wallet('POST', '/v1/payouts', 201, { merchant_id: merchant.id, amount: 1_000, currency: 'USD' });
  await wallet('GET', `/v1/payouts/${payout.id}`, 200);
  await wallet('GET', '/v1/payouts', 200);

  // The ledger, as a registered consumer: a ledger, two accounts, a posting and the reads.
  const consumer = (await ledgerConsumer(platform, 'example-consumer')).token;
  const ledger = (method: string, path: string, status: number, body?: unknown) => ok('ledger', method, path, status, { body, token: consumer });
  const book = await ledger('POST', '/v1/ledgers', 201, { name: 'main', commodity: 'USD' });
  const L = `/v1/ledgers/${book.id}`;
  const source = await ledger('POST', `${L}/accounts`, 201, { owner_type: 'user', owner_id: alice.id, purpose: 'cash', commodity: 'USD', floor: -100_000 });
  const target = await ledger('POST', `${L}/accounts`, 201, { owner_type: 'user', owner_id: bob.id, purpose: 'cash', commodity: 'USD' });
  const txn = await ledger('POST', `${L}/postings`, 201, {
    type: 'transfer',
    legs: [
      { account_id: source.id, direction: 'debit', amount: 750, commodity: 'USD' },
      { account_id: target.id, direction: 'credit', amount: 750, commodity: 'USD' },
    ],
  });
  await ledger('GET', `${L}/transactions/${txn.id}`, 200);
  await ledger('POST', `${L}/transactions/${txn.id}/reverse`, 201, {});
  const pending = await ledger('POST', `${L}/pendings`, 201, {
    type: 'payment',
    legs: [
      { account_id: source.id, direction: 'debit', amount: 300, commodity: 'USD' },
      { account_id: target.id, direction: 'credit', amount: 300, commodity: 'USD' },
    ],
  });
  await ledger('GET', `${L}/pendings/${pending.id}`, 200);
  await ledger('POST', `${L}/pendings/${pending.id}/void`, 200);
  // The feed lists a transaction once it has settled (committed LEDGER_FEED_SETTLE_MS, 2 s, ago:
  // shared/ledger/reads.ts), so read at once it answers whatever the calls above left settled, which
  // depends on the machine's speed (empty on a quick run, the first posting on a slow one). The
  // example is the settled feed: the posting and its reversal, oldest first.
  await vi.waitFor(async () => expect((await call(platform.urls.ledger, 'GET', `${L}/events`, { token: consumer })).body.data).toHaveLength(2), { timeout: 30_000, interval: 250 });
  await ledger('GET', `${L}/events`, 200);
  await ledger('GET', `${L}/transactions`, 200);
  await ledger('GET', `${L}/accounts/${target.id}`, 200);
  await ledger('GET', `${L}/accounts/${target.id}/entries`, 200);
  await ledger('GET', L, 200);
  await ledger('GET', '/v1/ledgers', 200);

  // The console: a partner administrator grants vendor support access for an hour, lists, revokes.
  const engineer = await staffToken(platform, { role: 'vendor_support' });
  const engineerId = JSON.parse(Buffer.from(engineer.split('.')[1]!, 'base64url').toString()).sub as string;
  const admin = await staffToken(platform, { role: 'partner_admin', tenantId: tenant.id });
  const console_ = (method: string, path: string, status: number, body?: unknown) => ok('console', method, path, status, { body, token: admin });
  const grant = await console_('POST', '/v1/support_access_grants', 201, {
    staff_id: engineerId,
    reason: 'Investigating a failed payout',
    ticket_reference: 'SUP-1042',
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  await console_('GET', '/v1/support_access_grants', 200);
  await console_('GET', `/v1/support_access_grants/${grant.id}/requests`, 200);
  await console_('POST', `/v1/support_access_grants/${grant.id}/revoke`, 200);

  apiKey = '';
  // Each response in its schema's field order: stored maps come back from DynamoDB in no fixed order.
  const documents = Object.fromEntries((['public', 'ledger', 'console'] as const).map((gateway) => [gateway, buildOpenApi(routes, gateway, { version: 'examples' })])) as Record<GatewayName, ReturnType<typeof buildOpenApi>>;
  recorded = normalize(inSchemaOrder(rec.recorded, documents));
  if (WRITE) {
    mkdirSync(EXAMPLES_DIR, { recursive: true });
    for (const [gateway, examples] of Object.entries(recorded) as [GatewayName, Record<string, unknown>][]) {
      if (Object.keys(examples).length === 0) continue;
      writeFileSync(join(EXAMPLES_DIR, FILE_OF[gateway]), `${JSON.stringify(sortedObject(examples), null, 2)}\n`);
    }
  }
});

afterAll(async () => {
  await platform?.stop();
});

describe('the OpenAPI examples recorded from the platform', () => {
  it('validate against their operations’ schemas, placeholders included', () => {
    for (const gateway of ['public', 'ledger', 'console'] as const) {
      const document = buildOpenApi(routes, gateway, { version: 'test', examples: recorded[gateway] });
      expect(exampleFaults(document), gateway).toEqual([]);
    }
  });

  it('carry no generated credential: keys, tokens and secrets are placeholders', () => {
    const text = JSON.stringify(recorded);
    expect(text).not.toMatch(/sk_(live|sandbox)_[0-9a-f]{8}-/);
    expect(text).not.toMatch(/whsec_(?!ZXhhbXBsZS)/);
    expect(text.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g)?.every((token) => token.includes('example')) ?? true).toBe(true);
    expect(text.match(/"[a-z_]*secret[a-z_]*":"[^"]*"/g)?.filter((field) => !field.includes('example') && !field.includes(PLACEHOLDERS.webhookSecret)) ?? []).toEqual([]);
    // No random run survives: ids and references are mapped to counters.
    expect(text.match(/[0-9a-f]{16,}/gi)?.filter((run) => !/^0+[1-9a-f][0-9a-f]?$/.test(run)) ?? []).toEqual([]);
  });

  it.skipIf(WRITE)('match the committed docs/openapi/examples files: the same operations, each with the same shape', () => {
    for (const [gateway, examples] of Object.entries(recorded) as [GatewayName, Record<string, unknown>][]) {
      const committed = readExamples(FILE_OF[gateway]);
      expect(Object.keys(committed).sort(), `${FILE_OF[gateway]}: run npm run openapi:examples`).toEqual(Object.keys(examples).sort());
      for (const [operationId, example] of Object.entries(examples)) {
        expect(shapeOf(committed[operationId]), `${FILE_OF[gateway]} ${operationId}: run npm run openapi:examples`).toEqual(shapeOf(example));
      }
    }
  });
});
