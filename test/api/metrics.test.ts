import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Platform } from '../../local/platform';
import { localDocumentClient } from '../../local/dynamodb';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { WalletDeps } from '../../shared/wallet/deps';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { createTransfer } from '../../shared/wallet/transfers/transfers';
import { METRIC } from '../../shared/kernel/metrics';
import { startReceiver, type Receiver } from '../integration/webhooks-receiver';
import { apiKeyFor, staffToken } from '../support/credentials';
import { captureEmf } from '../support/emf';
import { apiClient, expectProblem } from '../support/http';
import { fundUser } from '../support/money';
import { startTestPlatform } from '../support/platform';
import { walletLedgerClient } from '../support/wallet';
import { createTenant } from '../support/tenants';

/**
 * `METRICS=stdout`: the handlers the embedded platform runs write CloudWatch EMF lines on stdout
 * (Powertools Metrics), read here as CloudWatch would read them, while a client calls over HTTP.
 */

const emf = captureEmf();
let platform: Platform;
let receiver: Receiver;
let base: string;
const api = apiClient(() => base);
let fixture: { tenantId: string; alice: string; bob: string } | undefined;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { METRICS: 'stdout' } });
  base = platform.urls.public;
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await platform?.stop();
  // After the stop: a delivery still in flight writes its points into the capture, not the run's output.
  emf.restore();
});

const { points, named } = emf;

describe('EMF metrics through the embedded platform (METRICS=stdout)', () => {
  it('requests and refusals by route and code, money operations completed and refused by code, ledger latency, relay lag, webhook attempts, failures and delivery lag', async () => {
    const staff = await staffToken(platform, { role: 'platform' });
    const tenantId = await createTenant(api, staff, 'Metrics');
    const key = await apiKeyFor(platform, tenantId, ['users:write', 'users:read', 'transfers:write', 'transfers:read', 'webhooks:manage']);
    const [alice, bob] = await Promise.all(['alice', 'bob'].map(async (name) => (await api('POST', '/v1/users', { token: key, body: { external_id: `${name}-${uuidv7()}` } })).body.id as string));
    await fundUser(platform, tenantId, alice!, 1_000);
    fixture = { tenantId, alice: alice!, bob: bob! };
    const endpoint = async (path: string, status: number) => {
      const created = await api('POST', '/v1/webhook_endpoints', { token: key, body: { url: receiver.route(path, { thenStatus: status }), event_filters: ['transfer.completed'] } });
      expect(created.status, created.text).toBe(201);
    };
    await endpoint('/ok', 200);
    await endpoint('/down', 503);

    const sent = await api('POST', '/v1/transfers', { token: key, body: { from_user_id: alice, to_user_id: bob, amount: 400 }, key: uuidv7() });
    expect(sent.status, sent.text).toBe(201);
    expectProblem(await api('POST', '/v1/transfers', { token: key, body: { from_user_id: alice, to_user_id: bob, amount: 100_000 }, key: uuidv7() }), 'insufficient_funds');
    expectProblem(await api('POST', '/v1/transfers', { token: key, body: { from_user_id: alice, to_user_id: bob, amount: 1 } }), 'invalid_request');

    await vi.waitFor(() => expect(named(METRIC.webhookFailures, { Reason: 'http_5xx' }).length).toBeGreaterThan(0), { timeout: 30_000, interval: 100 });
    await vi.waitFor(() => expect(named(METRIC.webhookDeliveryLag).length).toBeGreaterThan(0), { timeout: 30_000, interval: 100 });

    // Every point carries service and Stage, and no dimension holds an id.
    const all = points();
    for (const point of all) {
      expect(point.dimensions).toMatchObject({ service: 'wallet-platform', Stage: 'local' });
      for (const value of Object.values(point.dimensions)) expect([tenantId, alice, bob]).not.toContain(value);
    }

    expect(named(METRIC.requests, { Route: 'createTransfer', StatusClass: '2xx' }).length).toBe(1);
    expect(named(METRIC.requests, { Route: 'createTransfer', StatusClass: '4xx' }).length).toBe(2);
    expect(named(METRIC.refusals, { Route: 'createTransfer', Code: 'insufficient_funds' }).map((p) => p.value)).toEqual([1]);
    expect(named(METRIC.refusals, { Route: 'createTransfer', Code: 'invalid_request' }).map((p) => p.value)).toEqual([1]);
    expect(named(METRIC.moneyCompleted, { Operation: 'transfer.create' }).map((p) => p.value)).toEqual([1]);
    expect(named(METRIC.moneyRefused, { Operation: 'transfer.create', Code: 'insufficient_funds' }).map((p) => p.value)).toEqual([1]);
    const ledgerCalls = named(METRIC.ledgerLatency, { Call: 'POST postings', Outcome: '2xx' });
    expect(ledgerCalls.length).toBeGreaterThan(0);
    for (const call of ledgerCalls) expect(call.value).toBeGreaterThanOrEqual(0);
    expect(named(METRIC.relayLag).length).toBeGreaterThan(0);
    expect(named(METRIC.webhookAttempts).length).toBeGreaterThanOrEqual(2);
    expect(named(METRIC.webhookFailures).filter((p) => p.dimensions.Reason === undefined).length).toBeGreaterThanOrEqual(1);
  });

  it('the sweeper worker, finishing a transfer a crash left after the ledger posting, counts it resumed', async () => {
    const { tenantId, alice, bob } = fixture!;
    const ledger = walletLedgerClient(platform);
    // Started long enough ago for the sweeper to take it over (as test/api/transfers.test.ts does).
    const runtime: WalletDeps = {
      client: localDocumentClient(platform.dynamodbEndpoint),
      table: platform.tables.wallet.name,
      clock: new ManualClock(new Date(Date.now() - SWEEP_AFTER_MS - 5_000)),
      ids: uuidv7,
      signer: () => Promise.reject(new Error('no signer here')),
      ledger: () => ledger,
    };
    const principal: Principal = { kind: 'api_key', id: `key-${uuidv7()}`, scopes: new Set(['transfers:write']), tenantId };
    const crash = { afterLedger: () => { throw new Error('crashed after the ledger posting'); } };
    const body = { from_user_id: alice, to_user_id: bob, amount: 100 };
    await expect(createTransfer(runtime, principal, tenantId, body, { idempotencyKey: uuidv7(), requestId: uuidv7() }, crash)).rejects.toThrow('crashed');
    expect(named(METRIC.moneyResumed)).toEqual([]);

    const swept = (await platform.scheduler.run('walletSweepOperations')) as { finished: number };
    expect(swept.finished).toBeGreaterThanOrEqual(1);
    expect(named(METRIC.moneyResumed, { Operation: 'transfer.create' }).map((p) => p.value)).toEqual(Array(swept.finished).fill(1));
  });

  it('a reconciliation run (the scheduled worker, as the platform runs it) writes its open orphans: none here', async () => {
    await platform.scheduler.run('walletReconcileLedgers');
    expect(named(METRIC.reconciliationOrphans).map((p) => p.value)).toEqual([0]);
    // Powertools counts a cold start only where Lambda says the init was on demand (AWS_LAMBDA_INITIALIZATION_TYPE).
    expect(named('ColdStart')).toEqual([]);
  });
});
