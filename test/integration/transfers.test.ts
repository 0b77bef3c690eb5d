import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { EntryPage } from '../../shared/ledger/schemas';
import { setFeePlan } from '../../shared/wallet/tenancy/fee-plan';
import { type FeeRule } from '../../shared/wallet/tenancy/fees';
import { listAuditLog } from '../../shared/wallet/tenancy/audit';
import { createUser, getUserRecord } from '../../shared/wallet/tenancy/users';
import { getBalances } from '../../shared/wallet/transfers/balances';
import type { TransfersDeps, TransfersLedger } from '../../shared/wallet/transfers/deps';
import { effectiveLimits, getUserLimits, limitClaims, setLimits, setUserLimits } from '../../shared/wallet/transfers/limits';
import { listTransactions } from '../../shared/wallet/transfers/transactions';
import { createTransfer, getTransfer, listTransfers, type Transfer } from '../../shared/wallet/transfers/transfers';
import { LATE_START_MS, SWEEP_AFTER_MS, operationKeys } from '../../shared/wallet/saga/key-record';
import { sweepOperations } from '../../shared/wallet/saga/sweeper';
import { getItem, putItem } from '../../shared/aws/store';
import { BatchWriteCommand, PutCommand, type DocumentCommand } from '../../shared/aws/dynamodb';
import type { WalletDeps } from '../../shared/wallet/deps';
import { referenceFee } from '../support/fees';
import { tenancyFixture, type TenancyFixture } from './tenancy-fixture';
import { storedEvents } from '../support/events';
import { apiKeyPrincipals, refusal } from '../support/services';
import { exchangeClientCredentials } from '../support/consumers';
import type { TenantRecord, UserRecord } from '../../shared/wallet/tenancy/records';

type ListEntries = TransfersLedger['listEntries'];

/**
 * Transfers as services on DynamoDB Local and the real ledger API (through a LedgerClient with the
 * wallet's own credentials): fees at the transfer level, crash safety of the saga (the client's
 * retry and the sweeper), limit claims, and the user's view of its transactions.
 */

let f: TenancyFixture;
let runtime: WalletDeps;

beforeAll(async () => {
  f = await tenancyFixture();
  runtime = { ...f.deps, signer: () => Promise.reject(new Error('no signer in these tests')), ledger: () => f.ledger };
});
afterAll(() => f?.stop());

const operator = apiKeyPrincipals(['transfers:write']);

/** A tenant with a p2p fee rule and two users, the sender funded from the tenant's funding account. */
async function tenantWithUsers(options: { rule?: FeeRule; funds?: number } = {}) {
  const tenant = await f.tenant();
  if (options.rule) await setFeePlan(f.deps, tenant.id, { p2p: options.rule }, f.context());
  const [alice, bob] = [await f.user(tenant.id), await f.user(tenant.id)];
  if (options.funds) await f.fund(tenant, alice.cash_account_id, options.funds);
  return { tenant, alice, bob };
}

const sendTransfer = (rt: WalletDeps, tenant: TenantRecord, from: UserRecord, to: UserRecord, amount: number, key = uuidv7(), faults = {}) =>
  createTransfer(rt, operator(tenant.id), tenant.id, { from_user_id: from.id, to_user_id: to.id, amount }, { idempotencyKey: key, requestId: uuidv7() }, faults);

describe('transfer amounts', () => {
  it('posts those amounts in one ledger transaction and records the transfer with its event', async () => {
    const rule: FeeRule = { bps: 150, flat: 10, min_fee: 25, max_fee: 400 };
    const { tenant, alice, bob } = await tenantWithUsers({ rule, funds: 100_000 });
    const outcome = await sendTransfer(runtime, tenant, alice, bob, 10_000);
    expect(outcome.status).toBe(201);
    const transfer = JSON.parse(outcome.body) as Transfer;
    const fee = Number(referenceFee(rule, 10_000)); // 150 + 10 = 160
    expect(transfer).toMatchObject({ from_user_id: alice.id, to_user_id: bob.id, amount: 10_000, fee, currency: 'USD', status: 'completed', description: null, metadata: {} });
    const transaction = await f.ledger.getTransaction(tenant.ledger_id, transfer.ledger_transaction_id);
    expect(transaction).toMatchObject({ type: 'transfer', reference_id: transfer.id, metadata: { transfer_id: transfer.id } });
    expect(transaction.legs.map((l) => [l.owner_id, l.purpose, l.direction, l.amount])).toEqual([
      [alice.id, 'cash', 'debit', 10_000 + fee],
      [bob.id, 'cash', 'credit', 10_000],
      [tenant.id, 'revenue', 'credit', fee],
    ]);
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(100_000 - 10_000 - fee);
    expect((await f.balance(tenant, bob.cash_account_id)).available).toBe(10_000);
    expect((await f.ledger.getAccount(tenant.ledger_id, tenant.accounts.revenue)).balance.posted).toBe(fee);
    expect(await getTransfer(f.deps, tenant.id, transfer.id)).toEqual(transfer);
    expect((await storedEvents(f.deps, tenant.id, 'transfer.completed')).map((e) => e.data)).toEqual([{ transfer }]);
  });

  it('charges the fee at the rate of the first attempt when the fee plan changes before a retry', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ rule: { bps: 0, flat: 50, min_fee: 0, max_fee: null }, funds: 10_000 });
    const key = uuidv7();
    await expect(sendTransfer(runtime, tenant, alice, bob, 1_000, key, { afterLedger: () => { throw new Error('crash'); } })).rejects.toThrow('crash');
    await setFeePlan(f.deps, tenant.id, { p2p: { bps: 0, flat: 70, min_fee: 0 } }, f.context());
    const outcome = await sendTransfer(runtime, tenant, alice, bob, 1_000, key);
    expect(outcome.status).toBe(201);
    expect(JSON.parse(outcome.body)).toMatchObject({ fee: 50 });
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(10_000 - 1_050);
  });
});

describe('crash safety', () => {
  const crash = { afterLedger: () => { throw new Error('crashed after the ledger posting'); } };

  async function expectPostedOnce(tenant: TenantRecord, transfer: Transfer) {
    const posted = (await f.transactions(tenant)).filter((t) => t.type === 'transfer');
    expect(posted.map((t) => t.reference_id)).toEqual([transfer.id]);
    const page = await listTransfers(f.deps, tenant.id, { limit: 100 });
    expect(page.data).toEqual([transfer]);
    expect((await storedEvents(f.deps, tenant.id, 'transfer.completed')).map((e) => e.data.transfer.id)).toEqual([transfer.id]);
  }

  it("posts exactly once when the saga dies after the ledger posting and the client retries with the same key", async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ rule: { bps: 100, flat: 0, min_fee: 1, max_fee: null }, funds: 5_000 });
    const key = uuidv7();
    await expect(sendTransfer(runtime, tenant, alice, bob, 2_000, key, crash)).rejects.toThrow('crashed');
    // The money moved, the wallet has not recorded it yet.
    expect((await f.transactions(tenant)).filter((t) => t.type === 'transfer')).toHaveLength(1);
    expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data).toEqual([]);

    const retry = await sendTransfer(runtime, tenant, alice, bob, 2_000, key);
    expect(retry).toMatchObject({ status: 201, replayed: false });
    const again = await sendTransfer(runtime, tenant, alice, bob, 2_000, key);
    expect(again).toEqual({ ...retry, replayed: true });
    await expectPostedOnce(tenant, JSON.parse(retry.body) as Transfer);
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(5_000 - 2_020);
  });

  it('posts exactly once when nobody retries and the sweeper finishes the transfer', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 5_000 });
    const clock = new ManualClock(new Date());
    const clocked: WalletDeps = { ...runtime, clock };
    const key = uuidv7();
    await expect(sendTransfer(clocked, tenant, alice, bob, 1_500, key, crash)).rejects.toThrow('crashed');

    // Too young: a live request may still be finishing it.
    await sweepOperations(clocked);
    expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data).toEqual([]);

    clock.advance(SWEEP_AFTER_MS + 1_000);
    expect(await sweepOperations(clocked)).toBeGreaterThanOrEqual(1);
    const [transfer] = (await listTransfers(f.deps, tenant.id, { limit: 10 })).data;
    expect(transfer).toMatchObject({ amount: 1_500, fee: 0 });
    await expectPostedOnce(tenant, transfer!);

    // The client's late retry answers what the sweeper committed, and the next sweep has nothing to do with it.
    const retry = await sendTransfer(clocked, tenant, alice, bob, 1_500, key);
    expect(retry.replayed).toBe(true);
    expect(JSON.parse(retry.body)).toEqual(transfer);
    await sweepOperations(clocked);
    await expectPostedOnce(tenant, transfer!);
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(3_500);
  });

  /**
   * A client whose first batch write stores only its first item and answers the rest unprocessed
   * (DynamoDB does so when throttled), and whose next batch write dies with the process.
   */
  function diesMidBatch(client: WalletDeps['client']): WalletDeps['client'] {
    let batches = 0;
    return {
      send: (async (command: DocumentCommand) => {
        if (!(command instanceof BatchWriteCommand)) return client.send(command);
        batches += 1;
        if (batches > 1) throw new Error('crashed inside the commit');
        const [table, writes] = Object.entries(command.input.RequestItems!)[0]!;
        await client.send(new BatchWriteCommand({ RequestItems: { [table]: writes.slice(0, 1) } }));
        return { UnprocessedItems: { [table]: writes.slice(1) } };
      }) as WalletDeps['client']['send'],
    };
  }

  // With both items written the transfer is complete: the retry answers from it. With one missing, the retry writes it.
  const crashes = [
    ['its transfer and event are written', (deps: WalletDeps) => ({ deps, faults: { afterCreates: () => { throw new Error('crashed inside the commit'); } } }), true],
    ['only its transfer is written (the event came back unprocessed)', (deps: WalletDeps) => ({ deps: { ...deps, client: diesMidBatch(deps.client) }, faults: {} }), false],
  ] as const;
  for (const [what, crashing, complete] of crashes) {
    it(`${complete ? 'answers from what it wrote' : 'writes the rest once'} when the saga dies after ${what}, before answering: the retry, then the sweeper, find nothing twice`, async () => {
      const { tenant, alice, bob } = await tenantWithUsers({ rule: { bps: 100, flat: 0, min_fee: 1, max_fee: null }, funds: 5_000 });
      const clock = new ManualClock(new Date());
      const clocked: WalletDeps = { ...runtime, clock };
      const key = uuidv7();
      const crash = crashing(clocked);
      await expect(sendTransfer(crash.deps, tenant, alice, bob, 1_000, key, crash.faults)).rejects.toThrow('crashed');
      expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data).toHaveLength(1);

      const retry = await sendTransfer(clocked, tenant, alice, bob, 1_000, key);
      expect(retry).toMatchObject({ status: 201, replayed: complete });
      clock.advance(SWEEP_AFTER_MS + 1_000);
      await sweepOperations(clocked);
      await expectPostedOnce(tenant, JSON.parse(retry.body) as Transfer);
      expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(5_000 - 1_010);
    });
  }

  it('answers a retry byte for byte from the transfer it wrote (metadata in key order), writing no answer to the key', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 5_000 });
    const key = uuidv7();
    const input = { from_user_id: alice.id, to_user_id: bob.id, amount: 100, description: 'rent', metadata: { zeta: '1', alpha: '2', '10': 'x', '9': 'y' } };
    const create = () => createTransfer(runtime, operator(tenant.id), tenant.id, input, { idempotencyKey: key, requestId: uuidv7() });
    const first = await create();
    expect(first).toMatchObject({ status: 201, replayed: false });
    expect(await create()).toEqual({ ...first, replayed: true });
    const transfer = JSON.parse(first.body) as Transfer;
    expect(Object.keys(transfer.metadata)).toEqual(['9', '10', 'alpha', 'zeta']);
    expect(JSON.stringify(await getTransfer(f.deps, tenant.id, transfer.id))).toBe(first.body);
    // The transfer and its event are the answer: the key's record was written once, at the start.
    const record = await getItem(f.deps, operationKeys.record(tenant.id, key));
    expect(record).toMatchObject({ state: 'started', operation_id: transfer.id });
    expect(record).not.toHaveProperty('body');
    await expectPostedOnce(tenant, transfer);
  });

  it('indexes again an operation a sweep could not finish (the ledger down), and a later sweep finishes it', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 5_000 });
    const clock = new ManualClock(new Date());
    const clocked: WalletDeps = { ...runtime, clock };
    const key = uuidv7();
    await expect(sendTransfer(clocked, tenant, alice, bob, 700, key, crash)).rejects.toThrow('crashed');
    const downLedger = Object.assign(Object.create(f.ledger) as typeof f.ledger, { post: () => Promise.reject(new Error('ledger down')) });
    clock.advance(SWEEP_AFTER_MS + 1_000);
    await sweepOperations({ ...clocked, ledger: () => downLedger });
    clock.advance(70_000);
    await sweepOperations({ ...clocked, ledger: () => downLedger });
    expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data).toEqual([]);

    // The walks have passed the key's start: only the entry the last one wrote again leads this one to it.
    clock.advance(40_000);
    expect(await sweepOperations(clocked)).toBeGreaterThanOrEqual(1);
    const [transfer] = (await listTransfers(f.deps, tenant.id, { limit: 10 })).data;
    expect(transfer).toMatchObject({ amount: 700 });
    await expectPostedOnce(tenant, transfer!);
    expect(await sendTransfer(clocked, tenant, alice, bob, 700, key)).toMatchObject({ status: 201, replayed: true, body: JSON.stringify(transfer) });
  });

  /** A client whose write of a key's record returns after LATE_START_MS (a slow write: the clock moves on). */
  function slowKeyStart(client: WalletDeps['client'], clock: ManualClock): WalletDeps['client'] {
    return {
      send: (async (command: DocumentCommand) => {
        const result = await client.send(command);
        if (command instanceof PutCommand && String(command.input.Item?.pk).startsWith('IDEM#')) clock.advance(LATE_START_MS + 1);
        return result;
      }) as WalletDeps['client']['send'],
    };
  }

  it('posts nothing when its key took too long to be written, and the retry with the same key goes on once', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 5_000 });
    const clock = new ManualClock(new Date());
    const slowKey = slowKeyStart(runtime.client, clock);
    const key = uuidv7();
    expect((await refusal(sendTransfer({ ...runtime, clock, client: slowKey }, tenant, alice, bob, 300, key))).code).toBe('service_unavailable');
    expect((await f.transactions(tenant)).filter((t) => t.type === 'transfer')).toEqual([]);

    const retry = await sendTransfer({ ...runtime, clock }, tenant, alice, bob, 300, key);
    expect(retry).toMatchObject({ status: 201, replayed: false });
    await expectPostedOnce(tenant, JSON.parse(retry.body) as Transfer);
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(5_000 - 300);
  });

  it('indexes again a key a retry takes over: a crash during the retry is swept, though the sweeper had walked past its start', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 5_000 });
    const clock = new ManualClock(new Date());
    const clocked: WalletDeps = { ...runtime, clock };
    const slowKey = slowKeyStart(runtime.client, clock);
    const key = uuidv7();
    // A first try whose key showed late, after walks that passed its start without seeing it.
    expect((await refusal(sendTransfer({ ...clocked, client: slowKey }, tenant, alice, bob, 400, key))).code).toBe('service_unavailable');
    const marks = await Promise.all([0, 1, 2, 3].map((shard) => getItem(f.deps, operationKeys.sweptThrough(shard))));
    const walked = new Date(clock.now().getTime() - 1_000).toISOString();
    try {
      for (const shard of [0, 1, 2, 3]) await putItem(f.deps, { ...operationKeys.sweptThrough(shard), entity: 'saga_sweep', through: walked });
      // The client's retry takes it over and dies after the ledger posting.
      await expect(sendTransfer(clocked, tenant, alice, bob, 400, key, crash)).rejects.toThrow('crashed');
      clock.advance(SWEEP_AFTER_MS + 10_000);
      expect(await sweepOperations(clocked)).toBeGreaterThanOrEqual(1);
      const [transfer] = (await listTransfers(f.deps, tenant.id, { limit: 10 })).data;
      await expectPostedOnce(tenant, transfer!);
    } finally {
      // As they were; where there was none, one that walks from the start.
      for (const [shard, mark] of marks.entries()) await putItem(f.deps, mark ?? { ...operationKeys.sweptThrough(shard), entity: 'saga_sweep', through: new Date(0).toISOString() });
    }
  });

  it('remembers a ledger refusal under the key: insufficient funds answers the same bytes and moves nothing', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 100 });
    const key = uuidv7();
    const first = await sendTransfer(runtime, tenant, alice, bob, 101, key);
    expect(first.status).toBe(422);
    expect(JSON.parse(first.body)).toMatchObject({ code: 'insufficient_funds' });
    expect(await sendTransfer(runtime, tenant, alice, bob, 101, key)).toEqual({ ...first, replayed: true });
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(100);
    expect((await listTransfers(f.deps, tenant.id, { limit: 10 })).data).toEqual([]);
  });
});

describe('limits', () => {
  it('builds one claim per window with a max, keyed by the UTC day and month, expiring at its end', () => {
    const at = new Date('2026-12-31T23:59:59.999Z');
    expect(limitClaims({ daily_max: 1_000, monthly_max: 5_000 }, 'u1', 300, at)).toEqual([
      { key: 'p2p:u1:d:2026-12-31', amount: 300, max: 1_000, expires_at: '2027-01-01T00:00:00.000Z' },
      { key: 'p2p:u1:m:2026-12', amount: 300, max: 5_000, expires_at: '2027-01-01T00:00:00.000Z' },
    ]);
    expect(limitClaims({ daily_max: null, monthly_max: 0 }, 'u1', 1, new Date('2026-02-10T05:00:00Z'))).toEqual([
      { key: 'p2p:u1:m:2026-02', amount: 1, max: 0, expires_at: '2026-03-01T00:00:00.000Z' },
    ]);
    expect(limitClaims({ daily_max: null, monthly_max: null }, 'u1', 1, at)).toEqual([]);
  });

  it('refuses with limit_exceeded the transfer that would pass the daily max, and lets the rest of it through', async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 10_000 });
    await setLimits(f.deps, tenant.id, { p2p: { daily_max: 1_000, monthly_max: null } }, f.context());
    expect((await sendTransfer(runtime, tenant, alice, bob, 600)).status).toBe(201);
    const passing = await sendTransfer(runtime, tenant, alice, bob, 401);
    expect(passing.status).toBe(422);
    expect(JSON.parse(passing.body)).toMatchObject({ code: 'limit_exceeded' });
    expect((await sendTransfer(runtime, tenant, alice, bob, 400)).status).toBe(201);
    expect(JSON.parse((await sendTransfer(runtime, tenant, alice, bob, 1)).body)).toMatchObject({ code: 'limit_exceeded' });
    // Bob's own window is his.
    expect((await sendTransfer(runtime, tenant, bob, alice, 1_000)).status).toBe(201);
    expect((await f.balance(tenant, alice.cash_account_id)).available).toBe(10_000 - 1_000 + 1_000);
  });

  it("applies a user's override instead of the tenant's, and the tenant's again once it is removed", async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ funds: 10_000 });
    await setLimits(f.deps, tenant.id, { p2p: { daily_max: 100, monthly_max: 5_000 } }, f.context());
    await setUserLimits(f.deps, tenant.id, alice.id, { p2p: { daily_max: 2_000, monthly_max: null } }, f.context());
    expect(await effectiveLimits(f.deps, tenant.id, alice.id)).toEqual({ p2p: { daily_max: 2_000, monthly_max: null } });
    expect((await sendTransfer(runtime, tenant, alice, bob, 1_500)).status).toBe(201);
    const removed = await setUserLimits(f.deps, tenant.id, alice.id, { p2p: null }, f.context());
    expect(removed).toEqual({ user_id: alice.id, p2p: null, effective: { p2p: { daily_max: 100, monthly_max: 5_000 } } });
    expect(await getUserLimits(f.deps, tenant.id, alice.id)).toEqual(removed);
    expect(JSON.parse((await sendTransfer(runtime, tenant, alice, bob, 101)).body)).toMatchObject({ code: 'limit_exceeded' });
    const actions = (await listAuditLog(f.deps, tenant.id, { limit: 20 })).data.map((r) => r.action);
    expect(actions.filter((a) => a === 'limits.set' || a === 'user_limits.set')).toEqual(['user_limits.set', 'user_limits.set', 'limits.set']);
    expect((await refusal(setUserLimits(f.deps, tenant.id, uuidv7(), { p2p: null }, f.context()))).code).toBe('user_not_found');
  });
});

describe('balances and transactions', () => {
  async function entriesReader(): Promise<ListEntries> {
    const token = await exchangeClientCredentials(f.platform, process.env.LEDGER_CLIENT_ID!, process.env.LEDGER_CLIENT_SECRET!);
    return async (ledgerId, accountId, query) => {
      const params = new URLSearchParams();
      if (query.cursor) params.set('cursor', query.cursor);
      if (query.limit) params.set('limit', String(query.limit));
      const response = await fetch(`${f.platform.urls.ledger}/v1/ledgers/${ledgerId}/accounts/${accountId}/entries?${params}`, { headers: { authorization: `Bearer ${token}` } });
      return (await response.json()) as EntryPage;
    };
  }

  it("reads a user's balances from its cash account, with a business user's credit line", async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ rule: { bps: 0, flat: 5, min_fee: 0, max_fee: null }, funds: 1_000 });
    await sendTransfer(runtime, tenant, alice, bob, 100);
    expect(await getBalances(runtime, tenant.id, alice.id)).toEqual({ user_id: alice.id, currency: 'USD', available: 895, pending: 0, posted: 895, credit_limit: 0 });
    expect((await refusal(getBalances(runtime, tenant.id, alice.id, { selfOnly: bob.id }))).code).toBe('user_not_found');
    const business = await getUserRecord(f.deps, tenant.id, (await createUser(f.deps, tenant.id, { external_id: `biz-${uuidv7()}`, kind: 'business' }, f.context())).user.id);
    await f.ledger.updateAccount(tenant.ledger_id, business.cash_account_id, { floor: -700 });
    expect(await getBalances(runtime, tenant.id, business.id)).toMatchObject({ available: 0, credit_limit: 700 });
  });

  it("lists a user's entries newest first, the same through the platform's ledger client and a bare HTTP reader of the entries", async () => {
    const { tenant, alice, bob } = await tenantWithUsers({ rule: { bps: 0, flat: 1, min_fee: 0, max_fee: null }, funds: 1_000 });
    for (const amount of [10, 20, 30]) await sendTransfer(runtime, tenant, alice, bob, amount);
    await sendTransfer(runtime, tenant, bob, alice, 5);
    const viewer = { userId: alice.id, scopes: new Set(['balances:read']) };
    const entries = await entriesReader();
    const withEntries: TransfersDeps = { ...runtime, ledger: () => Object.assign(Object.create(f.ledger) as typeof f.ledger, { listEntries: entries }) };

    const collect = async (deps: TransfersDeps, type?: string) => {
      const rows = [];
      let cursor: string | undefined;
      do {
        const page = await listTransactions(deps, tenant.id, { limit: 2, cursor, type }, viewer);
        expect(page.data.length).toBeLessThanOrEqual(2);
        rows.push(...page.data);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return rows.map(({ type: t, direction, amount }) => [t, direction, amount]);
    };
    const expected = [['transfer', 'credit', 5], ['transfer', 'debit', 31], ['transfer', 'debit', 21], ['transfer', 'debit', 11], ['topup', 'credit', 1_000]];
    expect(await collect(withEntries)).toEqual(expected);
    expect(await collect(runtime)).toEqual(expected);
    expect(await collect(withEntries, 'topup')).toEqual([['topup', 'credit', 1_000]]);
    expect(await collect(runtime, 'topup')).toEqual([['topup', 'credit', 1_000]]);

    // The tenant's view: every transaction, with its legs by owner.
    const tenantView = await listTransactions(runtime, tenant.id, { limit: 50 }, { scopes: new Set(['ledger:read']) });
    expect(tenantView.data).toHaveLength(5);
    expect(tenantView.data[0]).toMatchObject({ type: 'transfer', direction: null, amount: 6 });
    expect(tenantView.data[0]!.legs!.map((l) => [l.owner_id, l.direction, l.amount])).toEqual([[bob.id, 'debit', 6], [alice.id, 'credit', 5], [tenant.id, 'credit', 1]]);
    expect((await refusal(listTransactions(runtime, tenant.id, { limit: 50 }, { scopes: new Set(['balances:read']) }))).code).toBe('insufficient_scope');
    expect((await refusal(listTransactions(runtime, tenant.id, { limit: 50, user_id: bob.id }, viewer))).code).toBe('user_not_found');
    const page = await listTransactions(runtime, tenant.id, { limit: 1 }, viewer);
    expect((await refusal(listTransactions(runtime, tenant.id, { limit: 1, cursor: page.next_cursor! }, { scopes: new Set(['ledger:read']) }))).code).toBe('invalid_request');
  });
});
