import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { uuidv7 } from '../../shared/kernel/ids';
import { PARTNER_ADMIN_SCOPES, TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { clientOf } from '../support/catalog';
import { apiKeyFor, staffAccount } from '../support/credentials';
import { fundUser } from '../support/money';
import { call, settleQueues, startTestPlatform } from '../support/platform';

/**
 * The dashboard as a person uses it: /dashboard on the console API opened in Debian's Chromium
 * (scripts/install-chromium.sh) through playwright-core, against the embedded platform. It signs in
 * with staff sessions, walks every page, follows a payment to its ledger transaction, redelivers an
 * event, and checks a tenant's staff are refused another tenant's pages, as the API refuses them.
 * Screenshots of each page go to test-artifacts/dashboard/ (git-ignored).
 */

const CHROMIUM = '/usr/bin/chromium';
const QUIET_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = resolve(import.meta.dirname, '..', '..', 'test-artifacts', 'dashboard');
/** Set SCREENSHOTS_FOR_README=1 to refresh the two screenshots the README shows. */
const README_IMAGES = resolve(import.meta.dirname, '..', '..', 'docs', 'images');

let platform: Platform;
let browser: BrowserContext;
let profile: string;
let receiver: Server;
const requested: string[] = [];
const consoleErrors: string[] = [];
/** Uncaught errors of the app itself. */
const pageErrors: string[] = [];

const w = {
  tenantA: '',
  tenantB: '',
  platformStaff: { email: '', password: '' },
  tenantStaff: { email: '', password: '' },
  paymentId: '',
  paymentTxn: '',
  otherPaymentId: '',
  otherPaymentTxn: '',
  eventId: '',
  clientId: '',
  keyA: '',
  keyB: '',
  userA: '',
  merchantA: '',
};

async function ok(result: Promise<{ status: number; text: string; body: any }>, status = 201): Promise<any> {
  const answer = await result;
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

/** A tenant with a user who paid a merchant (captured), and a refund of part of it. */
async function tenantWithMoney(platformToken: string, name: string): Promise<{ tenantId: string; key: string; paymentId: string; txn: string; merchantId: string; userId: string }> {
  const base = platform.urls.public;
  const tenant = await ok(call(base, 'POST', '/v1/tenants', { token: platformToken, headers: { 'idempotency-key': uuidv7() }, body: { name, currency: 'USD' } }));
  const key = await apiKeyFor(platform, tenant.id, [...TENANT_SCOPES]);
  const payer = await ok(call(base, 'POST', '/v1/users', { token: key, body: { external_id: `payer-${uuidv7().slice(-8)}` } }));
  await fundUser(platform, tenant.id, payer.id, 50_000);
  const merchant = await ok(call(base, 'POST', '/v1/merchants', { token: key, body: { name: `${name} shop` } }));
  const payment = await ok(call(base, 'POST', '/v1/payments', { token: key, headers: { 'idempotency-key': uuidv7() }, body: { user_id: payer.id, merchant_id: merchant.id, amount: 12_345, currency: 'USD', capture: true, description: 'Dashboard test' } }));
  expect(payment.ledger_transaction_id).toEqual(expect.any(String));
  return { tenantId: tenant.id, key, paymentId: payment.id, txn: payment.ledger_transaction_id, merchantId: merchant.id, userId: payer.id };
}

beforeAll(async () => {
  platform = await startTestPlatform();
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain', 'x-request-id': 'dashboard-receiver' }).end('ok from the test receiver'));
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));

  const platformAccount = await staffAccount(platform, { role: 'platform' });
  w.platformStaff = platformAccount;
  const platformToken = (await ok(call(platform.urls.public, 'POST', '/v1/auth/staff_sessions', { body: { email: platformAccount.email, password: platformAccount.password } }))).token as string;

  const a = await tenantWithMoney(platformToken, 'Acme');
  const b = await tenantWithMoney(platformToken, 'Globex');
  w.tenantA = a.tenantId;
  w.tenantB = b.tenantId;
  w.paymentId = a.paymentId;
  w.paymentTxn = a.txn;
  w.otherPaymentId = b.paymentId;
  w.otherPaymentTxn = b.txn;
  w.keyA = a.key;
  w.keyB = b.key;
  w.userA = a.userId;
  w.merchantA = a.merchantId;
  // A second user of tenant A, so its users span two pages of one.
  await ok(call(platform.urls.public, 'POST', '/v1/users', { token: a.key, body: { external_id: `second-${uuidv7().slice(-8)}` } }));
  w.tenantStaff = await staffAccount(platform, { role: 'tenant_staff', tenantId: a.tenantId, scopes: [...TENANT_SCOPES, ...PARTNER_ADMIN_SCOPES] });

  // A loopback receiver for tenant A's events, then an event for it: a fee plan change.
  const port = (receiver.address() as AddressInfo).port;
  await ok(call(platform.urls.public, 'POST', '/v1/webhook_endpoints', { token: a.key, body: { url: `http://127.0.0.1:${port}/hooks`, event_filters: ['fee_plan.*'] } }));
  await ok(call(platform.urls.public, 'PUT', '/v1/fee_plan', { token: a.key, body: { p2p: { bps: 150, flat: 10, min_fee: 10, max_fee: 500 } } }), 200);
  const events = await ok(call(platform.urls.public, 'GET', '/v1/webhook_events?type=fee_plan.set', { token: a.key }), 200);
  w.eventId = events.data.find((event: { type: string }) => event.type === 'fee_plan.set').id;
  await ok(call(platform.urls.public, 'POST', '/v1/refunds', { token: a.key, headers: { 'idempotency-key': uuidv7() }, body: { payment_id: a.paymentId, amount: 345, reason: 'damaged' } }));
  // The catalog: a client with an offering whose one variant holds stock.
  const client = await clientOf(platform.urls.public, a.key, { displayName: 'Acme Books' });
  w.clientId = client.id;
  const offering = await ok(call(platform.urls.public, 'POST', `/v1/clients/${client.id}/offerings`, { token: a.key, body: { title: 'Atlas', status: 'published', variants: [{ sku: 'ATLAS-1', amount: 2_500, inventory: { on_hand: 12 } }] } }));
  expect(offering.variants).toHaveLength(1);

  profile = mkdtempSync(join(tmpdir(), 'wallet-chromium-'));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: QUIET_FLAGS, viewport: { width: 1280, height: 900 } });
  browser.on('request', (request) => requested.push(request.url()));
  // Which address the app has taken: the app renders a new address's page (its "Loading…" first)
  // while the browser dispatches the hashchange (its listener sets the route; Preact renders in a
  // microtask), so once any hashchange listener has seen the address, the page on screen is that
  // address's (`loaded`). On a fresh document the app starts from the address it was opened at.
  await browser.addInitScript(() => {
    const page = globalThis as any;
    page.takenHash = page.location.hash;
    page.addEventListener('hashchange', () => (page.takenHash = page.location.hash));
  });
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await new Promise<void>((done) => (receiver ? receiver.close(() => done()) : done()));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const dashboardUrl = () => `${platform.urls.console}/dashboard`;

async function openTab(width = 1280): Promise<Page> {
  const tab = await browser.newPage();
  await tab.setViewportSize({ width, height: 900 });
  tab.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  tab.on('pageerror', (error) => pageErrors.push(error.message));
  return tab;
}

async function signIn(tab: Page, account: { email: string; password: string }, tenantId?: string): Promise<void> {
  await tab.goto(dashboardUrl());
  await tab.getByLabel('Email').fill(account.email);
  await tab.getByLabel('Password').fill(account.password);
  if (tenantId) await tab.getByLabel(/^Tenant id/).fill(tenantId);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.waitForSelector('[data-testid="who"]');
}

/**
 * Waits until the page of the tab's address has loaded (rows, an empty state, or a refusal). The
 * address changes (a link, a goto, a form) a moment before the browser delivers its hashchange to
 * the app; until then the previous page is on screen with nothing loading, and on a busy machine
 * that moment is long enough to read the previous page's rows (issue 30). So first the app must
 * have taken the address (the init script in beforeAll), then the page must have finished loading.
 */
const loaded = async (tab: Page): Promise<void> => {
  await tab.waitForFunction(() => (globalThis as any).takenHash === (globalThis as any).location.hash);
  await tab.waitForSelector('#page-title');
  await tab.waitForFunction(() => !(globalThis as any).document.querySelector('main [role="status"]')?.textContent?.startsWith('Loading'));
};

/** Opens a page by its address, as a shared link would. */
async function visit(tab: Page, hash: string): Promise<void> {
  await tab.goto(`${dashboardUrl()}#/${hash}`);
  await loaded(tab);
}

const shot = (tab: Page, name: string) => tab.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

describe('GET /dashboard', () => {
  it('serves the page and its app from the console API only, with a policy that allows nothing remote', async () => {
    const page = await call(platform.urls.console, 'GET', '/dashboard');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`connect-src 'self' ${new URL(platform.urls.public).origin}`);
    expect(csp).not.toContain('unsafe-inline');
    const app = await call(platform.urls.console, 'GET', '/dashboard/app.js');
    expect(app.status).toBe(200);
    expect(app.headers.get('content-type')).toMatch(/^text\/javascript/);
    // Never on the public gateway.
    expect((await call(platform.urls.public, 'GET', '/dashboard')).status).toBe(404);
  });

  it('lets the public API answer the console origin across origins, and no other origin', async () => {
    const origin = new URL(platform.urls.console).origin;
    const preflight = await fetch(`${platform.urls.public}/v1/payments`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const stranger = await fetch(`${platform.urls.public}/v1/payments`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:9', 'access-control-request-method': 'GET' } });
    expect(stranger.status).toBe(405);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await fetch(`${platform.urls.public}/v1/payments`, { headers: { origin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
    expect((await fetch(`${platform.urls.public}/v1/payments`, { headers: { origin: 'http://127.0.0.1:9' } })).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('GET /v1/transactions/{transactionId}', () => {
  it("answers a payment's ledger transaction with its legs, and another tenant's as absent", async () => {
    const txn = await ok(call(platform.urls.public, 'GET', `/v1/transactions/${w.paymentTxn}`, { token: w.keyA }), 200);
    expect(txn).toMatchObject({ id: w.paymentTxn, type: 'payment', currency: 'USD', direction: null, amount: 12_345 });
    expect(txn.legs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ owner_type: 'user', owner_id: w.userA, direction: 'debit', amount: 12_345 }),
        expect.objectContaining({ owner_type: 'merchant', owner_id: w.merchantA, direction: 'credit' }),
      ]),
    );
    // The same as the tenant's listing shows it.
    const listed = await ok(call(platform.urls.public, 'GET', '/v1/transactions?type=payment', { token: w.keyA }), 200);
    expect(listed.data.find((row: { id: string }) => row.id === w.paymentTxn)).toEqual(txn);
    const foreign = await call(platform.urls.public, 'GET', `/v1/transactions/${w.paymentTxn}`, { token: w.keyB });
    const absent = await call(platform.urls.public, 'GET', `/v1/transactions/${uuidv7()}`, { token: w.keyB });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'transaction_not_found']);
    expect([absent.status, absent.body.code]).toEqual([404, 'transaction_not_found']);
    const noScope = await call(platform.urls.public, 'GET', `/v1/transactions/${w.paymentTxn}`, { token: await apiKeyFor(platform, w.tenantA, ['balances:read']) });
    expect([noScope.status, noScope.body.code]).toEqual([403, 'insufficient_scope']);
    const malformed = await call(platform.urls.public, 'GET', '/v1/transactions/not-a-uuid', { token: w.keyA });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'invalid_request']);
  });

  it('names the ledger transaction on a captured payment, and none on an authorization', async () => {
    expect((await ok(call(platform.urls.public, 'GET', `/v1/payments/${w.paymentId}`, { token: w.keyA }), 200)).ledger_transaction_id).toBe(w.paymentTxn);
    const held = await ok(call(platform.urls.public, 'POST', '/v1/payments', { token: w.keyA, headers: { 'idempotency-key': uuidv7() }, body: { user_id: w.userA, merchant_id: w.merchantA, amount: 100, currency: 'USD', capture: false } }));
    expect(held.ledger_transaction_id).toBeNull();
    const captured = await ok(call(platform.urls.public, 'POST', `/v1/payments/${held.id}/capture`, { token: w.keyA, headers: { 'idempotency-key': uuidv7() }, body: {} }), 200);
    expect(captured.ledger_transaction_id).toEqual(expect.any(String));
    expect((await ok(call(platform.urls.public, 'GET', `/v1/transactions/${captured.ledger_transaction_id}`, { token: w.keyA }), 200)).type).toBe('payment_capture');
  });
});

describe('the dashboard in Chromium', () => {
  it('shows the sign-in refusal as the API answers it', async () => {
    const tab = await openTab();
    try {
      await tab.goto(dashboardUrl());
      await tab.getByLabel('Email').fill(w.tenantStaff.email);
      await tab.getByLabel('Password').fill('not the password at all');
      await tab.getByRole('button', { name: 'Sign in' }).click();
      const code = await tab.waitForSelector('.problem-code');
      expect(await code.textContent()).toBe('unauthenticated');
      await shot(tab, '00-sign-in-refused');
    } finally {
      await tab.close();
    }
  });

  it('walks every platform page as platform staff', async () => {
    const tab = await openTab();
    try {
      await signIn(tab, w.platformStaff);
      await tab.waitForSelector('[data-testid="rows"]');
      expect(await tab.locator('[data-testid="rows"]').textContent()).toContain('Acme');
      await shot(tab, '01-tenants');
      await tab.getByRole('link', { name: 'Acme' }).click();
      await tab.waitForSelector('[data-testid="balanced"]');
      expect(await tab.locator('[data-testid="balanced"]').textContent()).toBe('Every commodity nets to zero.');
      await shot(tab, '02-tenant-health');
      if (process.env.SCREENSHOTS_FOR_README) await tab.screenshot({ path: join(README_IMAGES, 'dashboard-tenant-health.png') });
      for (const [hash, name] of [['platform/transactions', '03-platform-transactions'], ['platform/users', '04-platform-users'], ['platform/access_log', '05-access-log'], [`audit_log?tenant_id=${w.tenantA}`, '06-platform-audit-log']] as const) {
        await visit(tab, hash);
        expect(await tab.locator('.problem').count(), hash).toBe(0);
        await shot(tab, name);
      }
    } finally {
      await tab.close();
    }
  });

  it('walks every tenant page as the tenant staff, and follows a payment to its ledger transaction', async () => {
    const tab = await openTab();
    try {
      await signIn(tab, w.tenantStaff);
      await tab.waitForSelector('[data-testid="fee-plan"]');
      await shot(tab, '10-overview');
      const links = await tab.locator('nav.side .links a').evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href') ?? ''));
      expect(links.length).toBeGreaterThanOrEqual(14);
      for (const link of links) {
        const hash = link.replace(/^#\//, '');
        await visit(tab, hash);
        expect(await tab.locator('.problem').count(), hash).toBe(0);
        await shot(tab, `11-${hash.replace(/\W+/g, '-')}`);
      }
      // The pages behind the lists: a user, a catalog client with its stock chart.
      await visit(tab, 'users');
      await tab.locator('[data-testid="rows"] a').first().click();
      await tab.waitForSelector('text=Recent entries');
      await shot(tab, '12-user');
      await visit(tab, `catalog/${w.clientId}`);
      expect(await tab.locator('.problem').count()).toBe(0);
      await shot(tab, '13-catalog-client');
      await visit(tab, `reward_rules?client_id=${w.clientId}`);
      expect(await tab.locator('.problem').count()).toBe(0);

      // A webhook endpoint's secret, rotated from its page: the new one is shown once.
      await visit(tab, 'webhooks');
      await tab.getByRole('button', { name: /^Rotate the secret of / }).first().click();
      expect(await (await tab.waitForSelector('text=New secret (shown once)')).textContent()).toMatch(/whsec_|[A-Za-z0-9]{16}/);

      // A payment, to its ledger transaction: the legs the ledger holds.
      await visit(tab, 'payments');
      await tab.locator(`a[href="#/payments/${w.paymentId}"]`).click();
      await tab.waitForSelector('[data-ledger-link]');
      await shot(tab, '14-payment');
      await tab.locator('[data-ledger-link]').first().click();
      await tab.waitForSelector('[data-testid="legs"]');
      expect(await tab.locator('[data-testid="transaction-id"]').textContent()).toBe(w.paymentTxn);
      expect(await tab.locator('[data-testid="legs"] tbody tr').count()).toBeGreaterThanOrEqual(2);
      await shot(tab, '15-ledger-transaction');
      if (process.env.SCREENSHOTS_FOR_README) await tab.screenshot({ path: join(README_IMAGES, 'dashboard-ledger-transaction.png') });
    } finally {
      await tab.close();
    }
  });

  it('redelivers an event and shows the new attempt', async () => {
    const tab = await openTab();
    try {
      await signIn(tab, w.tenantStaff);
      await visit(tab, `events?type=fee_plan.set`);
      await tab.locator(`a[href="#/events/${w.eventId}"]`).click();
      // The first delivery runs a moment after the event: reload until it is there.
      const attempts = async () => Number(await tab.locator('[data-testid="attempt-count"]').textContent());
      const reload = async () => {
        await tab.getByRole('button', { name: 'Reload attempts' }).click();
        await loaded(tab);
        return attempts();
      };
      await tab.waitForSelector('[data-testid="attempt-count"]');
      await expect.poll(reload, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      const before = await attempts();
      await tab.getByRole('button', { name: 'Redeliver to every endpoint' }).click();
      await tab.waitForSelector('text=Redelivery queued.');
      await expect.poll(reload, { timeout: 30_000 }).toBeGreaterThan(before);
      expect(await tab.locator('[data-testid="attempts"]').textContent()).toContain('redelivered');
      // The newest attempt (the redelivery), open: what was sent, its signature, the answer, latency, next attempt.
      const newest = tab.locator('[data-testid="attempt-detail"]').first();
      expect(await newest.getAttribute('open')).not.toBeNull();
      const summary = await newest.locator('summary').textContent();
      expect(summary).toContain('redelivered');
      expect(summary).toContain('succeeded 200');
      const sent = await newest.locator('[data-testid="request-headers"]').textContent();
      for (const name of ['webhook-id: ' + w.eventId, 'webhook-timestamp: ', 'webhook-signature: v1,', 'x-wallet-signature: t=', 'content-type: application/json', 'user-agent: ']) expect(sent).toContain(name);
      expect(await newest.locator('[data-testid="signature"]').textContent()).toMatch(/^t=\d+(,v1=[0-9a-f]{64})+$/);
      expect(await newest.locator('[data-testid="response-headers"]').textContent()).toContain('x-request-id: dashboard-receiver');
      expect(await newest.locator('[data-testid="response-body"]').textContent()).toBe('ok from the test receiver');
      const fields = await newest.textContent();
      expect(fields).toMatch(/Latency\s*\d+ ms/);
      expect(fields).toMatch(/Next attempt\s*none/);
      await shot(tab, '16-event-redelivered');
    } finally {
      await tab.close();
    }
  });

  it("refuses a tenant's staff another tenant's pages, with the API's codes", async () => {
    const tab = await openTab();
    try {
      await signIn(tab, w.tenantStaff);
      const token = await tab.evaluate(() => (globalThis as any).sessionStorage.getItem('wallet-dashboard-session'));
      // Each page and the request it makes: the page shows the code the API answers that session.
      for (const [hash, path, code] of [
        [`tenants/${w.tenantB}/`, `/v1/tenants/${w.tenantB}/health`, 'global_read_only'],
        ['tenants', '/v1/tenants', 'global_read_only'],
        [`payments/${w.otherPaymentId}`, `/v1/payments/${w.otherPaymentId}`, 'not_found'],
        [`transactions/${w.otherPaymentTxn}`, `/v1/transactions/${w.otherPaymentTxn}`, 'transaction_not_found'],
        ['platform/access_log', '/v1/platform/access_log', 'global_read_only'],
      ] as const) {
        const answer = await call(platform.urls.public, 'GET', path, { token: token! });
        expect(answer.body.code, path).toBe(code);
        await visit(tab, hash);
        expect(await tab.locator('.problem-code').first().textContent(), hash).toBe(code);
        await shot(tab, `20-refused-${hash.split('/')[0]}`);
      }
    } finally {
      await tab.close();
    }
  });

  it('pages through shareable addresses, and shows empty states and refused filters as such', async () => {
    const tab = await openTab();
    try {
      await signIn(tab, w.tenantStaff);
      await visit(tab, 'users?limit=1');
      const first = await tab.locator('[data-testid="rows"] tbody').textContent();
      expect(await tab.locator('[data-testid="rows"] tbody tr').count()).toBe(1);
      await tab.getByRole('link', { name: 'Next page' }).click();
      await tab.waitForFunction(() => (globalThis as any).location.hash.includes('cursor='));
      await loaded(tab);
      const second = await tab.locator('[data-testid="rows"] tbody').textContent();
      expect(second).not.toBe(first);
      // The address names the page: opened afresh (as a shared link), it shows the same rows.
      const shared = await tab.evaluate(() => (globalThis as any).location.href as string);
      const other = await openTab();
      try {
        await other.goto(dashboardUrl());
        await other.evaluate((token) => (globalThis as any).sessionStorage.setItem('wallet-dashboard-session', token), await tab.evaluate(() => (globalThis as any).sessionStorage.getItem('wallet-dashboard-session')));
        await other.goto(shared);
        await other.reload();
        await loaded(other);
        expect(await other.locator('[data-testid="rows"] tbody').textContent()).toBe(second);
      } finally {
        await other.close();
      }
      await tab.getByRole('link', { name: 'First page' }).click();
      await tab.waitForFunction(() => !(globalThis as any).location.hash.includes('cursor='));
      await loaded(tab);
      expect(await tab.locator('[data-testid="rows"] tbody').textContent()).toBe(first);

      // Empty: tenant A has made no payout.
      await visit(tab, 'payouts');
      expect(await tab.locator('.empty').textContent()).toBe('No payouts.');
      // A filter the API refuses: its problem, with its code.
      await visit(tab, 'payments?user_id=not-a-user-id');
      expect(await tab.locator('.problem-code').textContent()).toBe('invalid_request');
      await shot(tab, '17-refused-filter');
      // A filter from the form lands in the address (the payment was partly refunded).
      await visit(tab, 'payments');
      await tab.getByLabel('Status').selectOption('partially_refunded');
      await tab.getByRole('button', { name: 'Apply' }).click();
      await tab.waitForFunction(() => (globalThis as any).location.hash === '#/payments?status=partially_refunded');
      await loaded(tab);
      expect(await tab.locator(`a[href="#/payments/${w.paymentId}"]`).count()).toBe(1);
    } finally {
      await tab.close();
    }
  });

  it('lets a support engineer read a tenant only under a live grant, and shows the tenant what was read', async () => {
    const engineer = await staffAccount(platform, { role: 'vendor_support' });
    const engineerId = engineer.id;
    const staffSession = (await ok(call(platform.urls.public, 'POST', '/v1/auth/staff_sessions', { body: { email: w.tenantStaff.email, password: w.tenantStaff.password } }))).token as string;
    const grant = await ok(
      call(platform.urls.console, 'POST', '/v1/support_access_grants', {
        token: staffSession,
        body: { staff_id: engineerId, reason: 'payments look wrong', ticket_reference: 'SUP-35', expires_at: new Date(Date.now() + 3600_000).toISOString() },
      }),
    );
    const tab = await openTab();
    try {
      // Without a tenant the session is no one's: the tenant's pages show the API's refusal.
      await signIn(tab, engineer);
      const bare = await tab.evaluate(() => (globalThis as any).sessionStorage.getItem('wallet-dashboard-session'));
      const refusal = await call(platform.urls.public, 'GET', '/v1/users', { token: bare! });
      expect(refusal.status).toBeGreaterThanOrEqual(400);
      await visit(tab, 'users');
      expect(await tab.locator('.problem-code').first().textContent()).toBe(refusal.body.code);
      await tab.getByRole('button', { name: 'Sign out' }).click();
      // Under the grant: the tenant's users, read through the API and recorded by it.
      await signIn(tab, engineer, w.tenantA);
      await visit(tab, 'users');
      expect(await tab.locator('[data-testid="rows"] tbody tr').count()).toBeGreaterThanOrEqual(1);
      await shot(tab, '21-support-engineer-users');
    } finally {
      await tab.close();
    }
    await settleQueues(platform);
    const staffTab = await openTab();
    try {
      await signIn(staffTab, w.tenantStaff);
      await visit(staffTab, 'support');
      await staffTab.locator(`a[href="#/support/${grant.id}"]`).click();
      await staffTab.waitForSelector('[data-testid="rows"]');
      expect(await staffTab.locator('[data-testid="rows"]').textContent()).toContain('listUsers');
      await shot(staffTab, '22-support-grant-requests');
    } finally {
      await staffTab.close();
    }
  });

  it('works 390 px wide and by keyboard, with a menu behind a labelled button', async () => {
    const tab = await openTab(390);
    try {
      await signIn(tab, w.tenantStaff);
      await tab.waitForSelector('[data-testid="fee-plan"]');
      expect(await tab.locator('nav.side .links').isVisible()).toBe(false);
      const menu = tab.getByRole('button', { name: 'Menu' });
      await menu.focus();
      await tab.keyboard.press('Enter');
      await tab.waitForSelector('nav.side .links a', { state: 'visible' });
      await shot(tab, '30-narrow-menu');
      // Tab reaches the links; Enter follows one.
      await tab.keyboard.press('Tab');
      await tab.keyboard.press('Tab');
      expect(await tab.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Users and balances');
      await tab.keyboard.press('Enter');
      await tab.waitForSelector('[data-testid="rows"]');
      // Nothing overflows the window sideways but the tables' own scrolling regions.
      expect(await tab.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot(tab, '31-narrow-users');
    } finally {
      await tab.close();
    }
  });

  it('loaded nothing from outside the two APIs and broke no policy', () => {
    const allowed = [new URL(platform.urls.console).origin, new URL(platform.urls.public).origin];
    expect(requested.filter((url) => !allowed.some((origin) => url.startsWith(`${origin}/`)) && !/^(data|blob):/.test(url))).toEqual([]);
    expect(consoleErrors.filter((message) => /Content.Security.Policy|CORS/i.test(message))).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
