import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { localDocumentClient } from '../../local/dynamodb';
import type { DocumentClient } from '../../shared/aws/dynamodb';
import { transact } from '../../shared/aws/store';
import { outboxItem } from '../../shared/events/outbox';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import { derivedUuidv7, uuidv7 } from '../../shared/kernel/ids';
import type { LedgerClient } from '../../shared/ledger-client/client';
import type { Transaction } from '../../shared/ledger-client/contract';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import type { WalletDeps } from '../../shared/wallet/deps';
import { RECONCILIATION_GRACE_MS } from '../../shared/wallet/reconciliation/reconcile';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { getTenantRecord } from '../../shared/wallet/tenancy/tenants';
import { getUserRecord } from '../../shared/wallet/tenancy/users';
import { transferKeys } from '../../shared/wallet/transfers/keys';
import { createTransfer } from '../../shared/wallet/transfers/transfers';
import { clientOf } from '../support/catalog';
import { apiKeyFor, idpTokenFor, staffToken, userTokenFor } from '../support/credentials';
import { apiClient, expectProblem, type Api } from '../support/http';
import { startTestPlatform } from '../support/platform';
import { createTenant, newUser } from '../support/tenants';
import { walletDeps, walletLedgerClient } from '../support/wallet';
import type { TenantRecord } from '../../shared/wallet/tenancy/records';

/**
 * Reconciliation over HTTP on a clock the test moves: every money flow of the wallet leaves no
 * orphan; money the ledger moved without a record (a posting made around the wallet, a saga that
 * crashed between its posting and its commit) and a record the ledger does not back are listed once
 * they are older than the grace, and leave the list when they are matched.
 */

const clock = new ManualClock(new Date());
let platform: Platform;
let documents: DocumentClient;
let ledger: LedgerClient;

const api: Api = (method, path, options) => apiClient(() => platform.urls.public)(method, path, options);
const reconcile = () => platform.scheduler.run('walletReconcileLedgers') as Promise<{ transactions_checked: number; found: number; resolved: number; orphans: number }>;
const reconciliation = async (token: string) => {
  const result = await api('GET', '/v1/ledger/reconciliation?limit=100', { token });
  expect(result.status, result.text).toBe(200);
  return result.body as { checked_through: string | null; transactions_checked: number; orphans: Record<string, unknown>[]; next_cursor: string | null };
};
const pastTheGrace = () => clock.advance(RECONCILIATION_GRACE_MS + 1_000);

interface Tenant {
  id: string;
  key: string;
  record: TenantRecord;
}

async function newTenant(name: string): Promise<Tenant> {
  // A fresh session: the moved clock outlives a staff session's lifetime.
  const platformStaff = await staffToken(platform, { role: 'platform' });
  const id = await createTenant(api, platformStaff, name);
  const key = await apiKeyFor(platform, id, [...TENANT_SCOPES]);
  return { id, key, record: await getTenantRecord(walletDeps(platform, documents, clock), id) };
}

interface User {
  id: string;
  externalId: string;
}

/** Waits for a queued sandbox confirmation (a second's delay on the moved clock) to land. */
async function settles(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    clock.advance(1_100);
    await platform.queues.drain();
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not settle`);
}

/** Money in the way a client puts it there: a top-up the sandbox processor confirms. */
async function topUp(tenant: Tenant, userId: string, amount: number): Promise<void> {
  const started = await api('POST', '/v1/topups', { token: tenant.key, key: uuidv7(), body: { user_id: userId, amount, currency: 'USD', sandbox_outcome: 'succeed' } });
  expect(started.status, started.text).toBe(201);
  await settles(async () => (await api('GET', `/v1/topups/${started.body.id}`, { token: tenant.key })).body.status === 'succeeded', `top-up ${started.body.id}`);
}

/** An IdP access token valid on the moved clock. */
function idpTokenOnTheClock(tenantId: string): Promise<string> {
  const now = Math.floor(clock.now().getTime() / 1000);
  return idpTokenFor(platform, { sub: `idp-${uuidv7()}`, tenantId, claims: { iat: now, nbf: now, exp: now + 900 } });
}

/** A posting straight into the tenant's ledger, around the wallet: no record explains it. */
async function postAround(tenant: Tenant, userId: string, posting: { type: string; reference_id?: string; amount: number }): Promise<Transaction> {
  const cash = (await getUserRecord(walletDeps(platform, documents, clock), tenant.id, userId)).cash_account_id;
  const { amount, ...rest } = posting;
  return ledger.post(
    tenant.record.ledger_id,
    { ...rest, legs: [{ account_id: tenant.record.accounts.funding, direction: 'debit', amount, commodity: 'USD' }, { account_id: cash, direction: 'credit', amount, commodity: 'USD' }] },
    uuidv7(),
  );
}

/** Tenants whose users are funded before the clock moves: the sandbox processor signs with its own (real) clock. */
const funded = {} as Record<'flows' | 'crash' | 'payer', { tenant: Tenant; users: User[] }>;

beforeAll(async () => {
  // The schedule workers run only when a test runs them, on the moved clock: on their real-time
  // rates, a run landing between a test's steps (a loaded machine makes a file outlast the rate's
  // minute) would sweep or reconcile what the test is about to check, or race its own run.
  platform = await startTestPlatform({ clock, scheduleRates: false });
  documents = localDocumentClient(platform.dynamodbEndpoint);
  ledger = walletLedgerClient(platform, clock);
  for (const [name, amounts] of [['flows', [20_000, 5_000]], ['crash', [1_000, 0]], ['payer', [1_000]]] as const) {
    const tenant = await newTenant(name);
    const users: User[] = [];
    for (const amount of amounts) {
      const user = await newUser(api, { token: tenant.key });
      if (amount > 0) await topUp(tenant, user.id, amount);
      users.push(user);
    }
    funded[name] = { tenant, users };
  }
});

afterAll(async () => {
  await platform?.stop();
});

describe('the reconciliation worker', () => {
  it('matches every money flow of the wallet to its record and back: transactions checked, no orphans', async () => {
    const { tenant } = funded.flows;
    const [alice, bob] = funded.flows.users as [User, User];
    const settings = await api('PUT', '/v1/rewards/settings', { token: tenant.key, body: { points_commodity: 'PTS', conversion_rate: { points: 100, cash: 5 } } });
    expect(settings.status, settings.text).toBe(200);
    const shop = await clientOf(platform.urls.public, tenant.key);
    const ok = async (result: Promise<{ status: number; text: string; body: any }>, status = 201) => {
      const answer = await result;
      expect(answer.status, answer.text).toBe(status);
      return answer.body;
    };

    await ok(api('POST', '/v1/transfers', { token: tenant.key, key: uuidv7(), body: { from_user_id: alice.id, to_user_id: bob.id, amount: 1_000 } }));
    await ok(api('POST', '/v1/payments', { token: tenant.key, key: uuidv7(), body: { user_id: bob.id, merchant_id: shop.merchantId, amount: 3_000, currency: 'USD' } }));
    await ok(api('POST', `/v1/merchants/${shop.merchantId}/marketing_funds`, { token: tenant.key, key: uuidv7(), body: { amount: 1_000 } }));
    await ok(api('POST', `/v1/clients/${shop.id}/reward_rules`, { token: tenant.key, body: { kind: 'cashback', params: { bps: 1_000 } } }));
    await ok(api('POST', `/v1/clients/${shop.id}/reward_rules`, { token: tenant.key, body: { kind: 'accrual', params: { points: 3, per_amount: 100 } } }));
    // Authorized, captured (with cashback and points), half refunded (with their clawbacks).
    const authorized = await ok(api('POST', '/v1/payments', { token: tenant.key, key: uuidv7(), body: { user_id: alice.id, merchant_id: shop.merchantId, amount: 2_000, currency: 'USD', capture: false } }));
    await ok(api('POST', `/v1/payments/${authorized.id}/capture`, { token: tenant.key, key: uuidv7(), body: {} }), 200);
    await ok(api('POST', '/v1/refunds', { token: tenant.key, key: uuidv7(), body: { payment_id: authorized.id, amount: 1_000 } }));
    await ok(api('POST', `/v1/users/${alice.id}/rewards/convert`, { token: tenant.key, key: uuidv7(), body: { points: 20 } }));
    // An order paid, a plan subscribed to, a payout the sandbox rail pays.
    const aliceToken = await userTokenFor(platform, tenant.key, alice.externalId, ['payments:read', 'payments:write', 'subscriptions:write']);
    const item = await ok(api('POST', `/v1/clients/${shop.id}/offerings`, { token: tenant.key, body: { title: 'Tee', status: 'published', variants: [{ sku: `T-${uuidv7().slice(-10)}`, amount: 1_500, inventory: { on_hand: 5 } }] } }));
    const order = await ok(api('POST', '/v1/orders', { token: aliceToken, key: uuidv7(), body: { client_id: shop.id, lines: [{ variant_id: item.variants[0].id, quantity: 1 }] } }));
    await ok(api('POST', `/v1/orders/${order.id}/pay`, { token: aliceToken, key: uuidv7() }), 200);
    const plan = await ok(api('POST', `/v1/clients/${shop.id}/offerings`, { token: tenant.key, body: { kind: 'plan', title: 'Monthly', amount: 500, interval: 'monthly', status: 'published' } }));
    await ok(api('POST', `/v1/explore/offerings/${plan.id}/subscribe`, { token: aliceToken, key: uuidv7() }));
    const payout = await ok(api('POST', '/v1/payouts', { token: tenant.key, key: uuidv7(), body: { merchant_id: shop.merchantId, amount: 100, currency: 'USD' } }));
    await settles(async () => (await api('GET', `/v1/payouts/${payout.id}`, { token: tenant.key })).body.status === 'paid', `payout ${payout.id}`);
    const posted = (await ledger.listTransactions(tenant.record.ledger_id, { limit: 100 })).data;
    const types = new Set(posted.map((transaction) => transaction.type));
    expect([...types].sort()).toEqual(
      ['cashback', 'cashback_clawback', 'marketing_funding', 'payment', 'payment_capture', 'payout', 'points_accrual', 'points_clawback', 'points_conversion', 'refund', 'subscription', 'topup', 'transfer'].sort(),
    );

    // Young: nothing is checked yet, and nothing is an orphan.
    await reconcile();
    expect((await reconciliation(tenant.key)).orphans).toEqual([]);

    pastTheGrace();
    const run = await reconcile();
    expect(run.transactions_checked).toBeGreaterThanOrEqual(posted.length);
    // Once more: the embedded platform's ids (and so its events') come from the real clock, which
    // this one has left behind; the records' stretch reaches them now.
    pastTheGrace();
    await reconcile();
    const report = await reconciliation(tenant.key);
    expect(report.orphans).toEqual([]);
    expect(report.transactions_checked).toBe(posted.length);
    expect(report.checked_through! > posted[0]!.created_at).toBe(true);
    expect(report.next_cursor).toBeNull();
  }, 180_000);

  it('lists a posting no wallet record explains once it is older than the grace, with its transaction, reference, type, amount and since', async () => {
    const tenant = await newTenant('Around');
    const user = await newUser(api, { token: tenant.key });
    const reference = uuidv7();
    const transaction = await postAround(tenant, user.id, { type: 'transfer', reference_id: reference, amount: 250 });

    await reconcile();
    const young = await reconciliation(tenant.key);
    expect(young.orphans).toEqual([]);
    expect(young.checked_through === null || young.checked_through < transaction.created_at).toBe(true);

    pastTheGrace();
    await reconcile();
    const report = await reconciliation(tenant.key);
    expect(report.orphans).toEqual([
      {
        kind: 'ledger_transaction',
        id: transaction.id,
        type: 'transfer',
        reference_id: reference,
        ledger_transaction_id: transaction.id,
        amount: 250,
        commodity: 'USD',
        reason: 'no_record',
        since: transaction.created_at,
        detected_at: expect.any(String),
      },
    ]);
    expect(report.checked_through! > transaction.created_at).toBe(true);
    const detected = report.orphans[0]!.detected_at;

    // Listed once: the next run finds it again and keeps its first detection.
    pastTheGrace();
    await reconcile();
    expect((await reconciliation(tenant.key)).orphans).toEqual([expect.objectContaining({ id: transaction.id, detected_at: detected })]);
  });

  it('lists a transfer whose saga crashed between its posting and its commit, and drops it once the sweeper finishes it', async () => {
    const { tenant, users } = funded.crash;
    const [alice, bob] = users as [User, User];
    const runtime: WalletDeps = { ...walletDeps(platform, documents, clock), signer: () => Promise.reject(new Error('no signer here')), ledger: () => ledger };
    const principal: Principal = { kind: 'api_key', id: `key-${uuidv7()}`, scopes: new Set(['transfers:write']), tenantId: tenant.id };
    const crash = {
      afterLedger: () => {
        throw new Error('crashed after the ledger posting');
      },
    };
    await expect(createTransfer(runtime, principal, tenant.id, { from_user_id: alice.id, to_user_id: bob.id, amount: 300 }, { idempotencyKey: uuidv7(), requestId: uuidv7() }, crash)).rejects.toThrow('crashed');
    const [posting] = (await ledger.listTransactions(tenant.record.ledger_id, { type: 'transfer', limit: 1 })).data;
    expect(posting).toMatchObject({ type: 'transfer' });

    pastTheGrace();
    await reconcile();
    expect((await reconciliation(tenant.key)).orphans).toEqual([
      expect.objectContaining({ kind: 'ledger_transaction', id: posting!.id, type: 'transfer', reference_id: posting!.reference_id, amount: 300, commodity: 'USD', reason: 'no_record', since: posting!.created_at }),
    ]);

    // A walk that cannot finish it now (a ledger or table slow past its retries on a loaded
    // machine) indexes it again for a later walk, as the platform's schedule would: walk again
    // once that later walk is due, a few times at most.
    let finished = 0;
    for (let walk = 0; walk < 5 && finished === 0; walk += 1) {
      if (walk > 0) clock.advance(SWEEP_AFTER_MS + 1_000);
      finished += ((await platform.scheduler.run('walletSweepOperations')) as { finished: number }).finished;
    }
    expect(finished).toBeGreaterThanOrEqual(1);
    const run = await reconcile();
    expect(run.resolved).toBeGreaterThanOrEqual(1);
    expect((await reconciliation(tenant.key)).orphans).toEqual([]);
    const transfers = (await api('GET', `/v1/transfers?user_id=${alice.id}`, { token: tenant.key })).body.data;
    expect(transfers).toEqual([expect.objectContaining({ id: posting!.reference_id, ledger_transaction_id: posting!.id })]);
  });

  it('lists a money record that names a transaction the ledger does not have', async () => {
    const tenant = await newTenant('Records');
    const [alice, bob] = [await newUser(api, { token: tenant.key }), await newUser(api, { token: tenant.key })];
    // A transfer record and its event, written as a commit would, naming a transaction never posted.
    const at = clock.now();
    const id = derivedUuidv7(at.getTime(), 'a transfer without its money');
    const missing = uuidv7();
    const transfer = { id, from_user_id: alice.id, to_user_id: bob.id, amount: 700, fee: 0, currency: 'USD', status: 'completed', description: null, metadata: {}, ledger_transaction_id: missing, created_at: at.toISOString() };
    const event = outboxItem(walletDeps(platform, documents, clock), { type: 'transfer.completed', tenantId: tenant.id, data: { transfer } }, { id: derivedUuidv7(at.getTime(), 'its event'), at });
    await transact(walletDeps(platform, documents, clock), [
      { Put: { TableName: platform.tables.wallet.name, Item: { ...transferKeys.transfer(tenant.id, id), ...transferKeys.userIndexes(id, alice.id, bob.id), entity: 'transfer', tenant_id: tenant.id, ...transfer } } },
      event.item,
    ]);

    pastTheGrace();
    await reconcile();
    expect((await reconciliation(tenant.key)).orphans).toEqual([
      {
        kind: 'wallet_record',
        id,
        type: 'transfer',
        reference_id: id,
        ledger_transaction_id: missing,
        amount: 700,
        commodity: 'USD',
        reason: 'transaction_missing',
        since: at.toISOString(),
        detected_at: expect.any(String),
      },
    ]);

    // The money posted and the record corrected to name it: matched on both sides, off the list.
    const posting = await postAround(tenant, bob.id, { type: 'transfer', reference_id: id, amount: 700 });
    await transact(walletDeps(platform, documents, clock), [
      { Update: { TableName: platform.tables.wallet.name, Key: transferKeys.transfer(tenant.id, id), UpdateExpression: 'SET ledger_transaction_id = :txn', ExpressionAttributeValues: { ':txn': posting.id } } },
    ]);
    pastTheGrace();
    const run = await reconcile();
    expect(run.resolved).toBeGreaterThanOrEqual(1);
    expect((await reconciliation(tenant.key)).orphans).toEqual([]);
  });
});

describe('GET /v1/ledger/reconciliation', () => {
  it("refuses user tokens and IdP users with forbidden, answers tenant staff, and shows each tenant only its own", async () => {
    const [mine, theirs] = [await newTenant('Mine'), await newTenant('Theirs')];
    const user = await newUser(api, { token: mine.key });
    const theirUser = await newUser(api, { token: theirs.key });
    const own = await postAround(mine, user.id, { type: 'topup', reference_id: uuidv7(), amount: 10 });
    const foreign = await postAround(theirs, theirUser.id, { type: 'topup', reference_id: uuidv7(), amount: 20 });
    pastTheGrace();
    await reconcile();

    const userToken = await userTokenFor(platform, mine.key, user.externalId, ['balances:read']);
    expectProblem(await api('GET', '/v1/ledger/reconciliation', { token: userToken }), 'forbidden');
    expectProblem(await api('GET', '/v1/ledger/reconciliation', { token: await idpTokenOnTheClock(mine.id) }), 'forbidden');
    expectProblem(await api('GET', '/v1/ledger/reconciliation', { token: await apiKeyFor(platform, mine.id, ['balances:read']) }), 'insufficient_scope');

    const staff = await staffToken(platform, { role: 'tenant_staff', tenantId: mine.id });
    expect((await reconciliation(staff)).orphans.map((orphan) => orphan.id)).toEqual([own.id]);
    expect((await reconciliation(mine.key)).orphans.map((orphan) => orphan.id)).toEqual([own.id]);
    expect((await reconciliation(theirs.key)).orphans.map((orphan) => orphan.id)).toEqual([foreign.id]);
  });

  it("never takes another tenant's record as the explanation of a posting", async () => {
    const { tenant: payer } = funded.payer;
    const [buyer] = funded.payer.users as [User];
    const other = await newTenant('Other');
    const merchant = (await api('POST', '/v1/merchants', { token: payer.key, body: { name: 'Shop' } })).body.id as string;
    const payment = await api('POST', '/v1/payments', { token: payer.key, key: uuidv7(), body: { user_id: buyer.id, merchant_id: merchant, amount: 400, currency: 'USD' } });
    expect(payment.status, payment.text).toBe(201);
    // The other tenant's ledger gets a payment posting naming the first tenant's payment.
    const stranger = await newUser(api, { token: other.key });
    const posting = await postAround(other, stranger.id, { type: 'payment', reference_id: payment.body.id, amount: 400 });
    pastTheGrace();
    await reconcile();

    expect((await reconciliation(payer.key)).orphans).toEqual([]);
    expect((await reconciliation(other.key)).orphans).toEqual([expect.objectContaining({ id: posting.id, type: 'payment', reference_id: payment.body.id, reason: 'no_record' })]);
  });

  it('pages the orphans, newest first, with the platform cursor', async () => {
    const tenant = await newTenant('Pages');
    const user = await newUser(api, { token: tenant.key });
    const postings: Transaction[] = [];
    for (let n = 0; n < 3; n += 1) {
      postings.push(await postAround(tenant, user.id, { type: 'mystery', amount: 5 + n }));
      clock.advance(10);
    }
    pastTheGrace();
    await reconcile();
    const first = await api('GET', '/v1/ledger/reconciliation?limit=2', { token: tenant.key });
    expect(first.body.orphans.map((orphan: { id: string; reason: string }) => [orphan.id, orphan.reason])).toEqual([
      [postings[2]!.id, 'unknown_type'],
      [postings[1]!.id, 'unknown_type'],
    ]);
    const second = await api('GET', `/v1/ledger/reconciliation?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { token: tenant.key });
    expect(second.body.orphans.map((orphan: { id: string }) => orphan.id)).toEqual([postings[0]!.id]);
    expect(second.body.next_cursor).toBeNull();
    expectProblem(await api('GET', '/v1/ledger/reconciliation?cursor=not-a-cursor', { token: tenant.key }), 'invalid_request');
  });
});
