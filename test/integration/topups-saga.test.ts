import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDocumentClient } from '../../local/dynamodb';
import type { Platform } from '../../local/platform';
import type { Principal } from '../../shared/http/principal';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import type { AnyRoute } from '../../shared/http/route';
import { routes as manifestRoutes } from '../../shared/routes';
import { topupRoutes } from '../../shared/wallet/topups/routes';
import { canTransition, isTerminal, TOPUP_STATUSES, type TopupStatus } from '../../shared/wallet/topups/states';
import type * as Sandbox from '../../shared/wallet/topups/sandbox';
import type * as Create from '../../shared/wallet/topups/create';
import type * as Reads from '../../shared/wallet/topups/reads';
import type * as Settlement from '../../shared/wallet/topups/settlement';
import type * as Operations from '../../shared/wallet/saga/sweeper';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import type { WalletDeps } from '../../shared/wallet/deps';
import { startTestPlatform } from '../support/platform';
import { eventsOfTopup } from '../support/events';
import { walletLedgerClient } from '../support/wallet';
import type { TenantRecord, UserRecord } from '../../shared/wallet/tenancy/records';

/**
 * Crash safety of the top-up sagas at service level, on the embedded platform's tables and ledger
 * API: a crash between the ledger posting and the wallet's commit (the saga's `afterLedger` hook)
 * followed by a redelivery, a second event or the sweeper credits exactly once, and a refund cannot
 * slip past a credit in flight. The platform's queue driver is stopped so the sandbox's own
 * confirmations arrive only when a test drains them.
 *
 * Service modules read configuration on first import, so they are imported after the platform
 * has set the environment.
 */

let platform: Platform;
let runtime: WalletDeps;
let clock: ManualClock;
let service: typeof Create & typeof Reads & typeof Settlement;
let sandbox: typeof Sandbox;
let operations: typeof Operations;
let tenant: TenantRecord;
let user: UserRecord;
let operator: Principal;

const crash = () => {
  throw new Error('crashed between the ledger and the commit');
};

beforeAll(async () => {
  // The webhook route joins the manifest's (which may already list it) for the sandbox's HTTP delivery.
  const routes = new Map<string, AnyRoute>([...manifestRoutes, ...Object.values(topupRoutes)].map((route) => [route.operationId, route as AnyRoute]));
  platform = await startTestPlatform({ routes: [...routes.values()] });
  await platform.queues.stop();
  const client = localDocumentClient(platform.dynamodbEndpoint);
  clock = new ManualClock(new Date());
  const ledger = walletLedgerClient(platform, clock);
  runtime = { client, table: platform.tables.wallet.name, clock, ids: uuidv7, signer: () => Promise.reject(new Error('no tokens here')), ledger: () => ledger };
  service = { ...(await import('../../shared/wallet/topups/create')), ...(await import('../../shared/wallet/topups/reads')), ...(await import('../../shared/wallet/topups/settlement')) };
  sandbox = await import('../../shared/wallet/topups/sandbox');
  operations = await import('../../shared/wallet/saga/sweeper');
  const tenants = await import('../../shared/wallet/tenancy/tenants');
  const users = await import('../../shared/wallet/tenancy/users');
  const staff = { kind: 'platform_staff', id: 'staff' };
  const created = await tenants.createTenant(runtime, staff, { name: 'Saga', currency: 'USD' }, { requestId: uuidv7(), idempotencyKey: uuidv7() });
  tenant = await tenants.getTenantRecord(runtime, created.tenant.id);
  const alice = await users.createUser(runtime, tenant.id, { external_id: 'alice' }, { actor: staff, requestId: uuidv7() });
  user = await users.getUserRecord(runtime, tenant.id, alice.user.id);
  operator = { kind: 'api_key', id: 'key', tenantId: tenant.id, sandbox: true, scopes: new Set(['topups:write']) };
});

afterAll(async () => {
  await platform?.stop();
});

const cash = async () => (await runtime.ledger().getAccount(tenant.ledger_id, user.cash_account_id)).balance.posted;

async function beginTopup(amount: number, outcome: 'succeed' | 'mismatch' = 'succeed') {
  const outcomeOf = await service.startTopup(runtime, tenant.id, operator, { user_id: user.id, amount, currency: 'USD', sandbox_outcome: outcome }, { idempotencyKey: uuidv7(), requestId: uuidv7() });
  expect(outcomeOf.status, outcomeOf.body).toBe(201);
  return JSON.parse(outcomeOf.body) as { id: string; processor_ref: string; amount: number; net_amount: number };
}

/** The processor's signed delivery of one event, signed now (every attempt is signed afresh). */
function deliver(topup: { id: string; processor_ref: string }, event: { id: string; amount: number }, faults?: { afterLedger?: () => void }) {
  const request = sandbox.sandboxWebhookRequest({ id: event.id, topup_id: topup.id, processor_ref: topup.processor_ref, outcome: 'succeeded', amount: event.amount, currency: 'USD' }, process.env.SANDBOX_PROCESSOR_SECRET!, Math.floor(clock.now().getTime() / 1000));
  return service.receiveProcessorWebhook(runtime, { gateway: 'sandbox', rawBody: request.body, headers: request.headers, requestId: uuidv7() }, { faults });
}

async function topupEventTypes(topupId: string): Promise<string[]> {
  return (await eventsOfTopup(runtime, tenant.id, topupId)).map((event) => event.type);
}

const statusOf = async (topupId: string) => (await service.getTopup(runtime, tenant.id, topupId)).status;

describe('a crash between the ledger posting and the commit', () => {
  it('is credited exactly once when the processor redelivers the event', async () => {
    const before = await cash();
    const topup = await beginTopup(1_000);
    const event = { id: `evt_${uuidv7()}`, amount: 1_000 };

    await expect(deliver(topup, event, { afterLedger: crash })).rejects.toThrow('crashed');
    // The money moved, the wallet has not recorded it yet: no status change, no event.
    expect(await cash()).toBe(before + 1_000);
    expect(await statusOf(topup.id)).toBe('pending');
    expect(await topupEventTypes(topup.id)).toEqual([]);

    clock.advance(5_000);
    const redelivered = await deliver(topup, event);
    expect(redelivered.status, redelivered.body).toBe(200);
    expect(JSON.parse(redelivered.body)).toMatchObject({ status: 'succeeded', ignored: false });
    expect(await cash()).toBe(before + 1_000);
    expect(await statusOf(topup.id)).toBe('succeeded');
    expect(await topupEventTypes(topup.id)).toEqual(['topup.succeeded']);

    const again = await deliver(topup, event);
    expect(again).toMatchObject({ status: 200, replayed: true, body: redelivered.body });
    expect(await cash()).toBe(before + 1_000);
  });

  it('holds off a second event while the first is unfinished, then credits once', async () => {
    const before = await cash();
    const topup = await beginTopup(400);
    const first = { id: `evt_${uuidv7()}`, amount: 400 };
    await expect(deliver(topup, first, { afterLedger: crash })).rejects.toThrow('crashed');

    // The sandbox's own confirmation of the same top-up (another event id) must wait its turn.
    await expect(deliver(topup, { id: `evt_${uuidv7()}`, amount: 400 })).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(await cash()).toBe(before + 400);

    expect((await deliver(topup, first)).status).toBe(200);
    const late = await deliver(topup, { id: `evt_${uuidv7()}`, amount: 400 });
    expect(JSON.parse(late.body)).toMatchObject({ status: 'succeeded', ignored: true });
    expect(await cash()).toBe(before + 400);
    expect(await topupEventTypes(topup.id)).toEqual(['topup.succeeded']);
  });

  it('is finished by the sweeper when nobody redelivers', async () => {
    const before = await cash();
    const topup = await beginTopup(250);
    await expect(deliver(topup, { id: `evt_${uuidv7()}`, amount: 250 }, { afterLedger: crash })).rejects.toThrow('crashed');
    clock.advance(SWEEP_AFTER_MS + 1_000);
    expect(await operations.sweepOperations(runtime)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(topup.id)).toBe('succeeded');
    expect(await cash()).toBe(before + 250);
    expect(await topupEventTypes(topup.id)).toEqual(['topup.succeeded']);
  });

  it("ignores the sandbox's own confirmation after another event settled the top-up", async () => {
    const before = await cash();
    const topup = await beginTopup(300);
    expect((await deliver(topup, { id: `evt_${uuidv7()}`, amount: 300 })).status).toBe(200);
    // The queued confirmation (another event id) goes over HTTP to the public webhook, signed by the worker.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await platform.queues.drain();
    expect(platform.queues.depth('sandboxProcessor')).toBe(0);
    expect(platform.queues.deadLetters('sandboxProcessor')).toEqual([]);
    expect(await cash()).toBe(before + 300);
    expect(await topupEventTypes(topup.id)).toEqual(['topup.succeeded']);
  });
});

describe('resolving a mismatch', () => {
  it('cannot refund a top-up whose credit is in flight, and credits exactly once on resume', async () => {
    const before = await cash();
    const topup = await beginTopup(900, 'mismatch');
    expect(JSON.parse((await deliver(topup, { id: `evt_${uuidv7()}`, amount: 899 })).body).status).toBe('amount_mismatch');
    expect(await cash()).toBe(before);

    const creditKey = uuidv7();
    const resolve = (action: 'credit_confirmed' | 'refund', key: string, faults?: { afterLedger?: () => void }) =>
      service.resolveTopup(runtime, tenant.id, operator, { topupId: topup.id, action }, { idempotencyKey: key, requestId: uuidv7(), faults });
    await expect(resolve('credit_confirmed', creditKey, { afterLedger: crash })).rejects.toThrow('crashed');
    expect(await cash()).toBe(before + 899);

    await expect(resolve('refund', uuidv7())).rejects.toMatchObject({ code: 'service_unavailable' });
    const resumed = await resolve('credit_confirmed', creditKey);
    expect(resumed.status, resumed.body).toBe(200);
    expect(JSON.parse(resumed.body)).toMatchObject({ status: 'succeeded', resolution: 'credit_confirmed', net_amount: 899 });
    const refused = await resolve('refund', uuidv7());
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).code).toBe('invalid_transition');
    expect(await cash()).toBe(before + 899);
    expect((await topupEventTypes(topup.id)).sort()).toEqual(['topup.amount_mismatch', 'topup.succeeded']);
  });
});

describe('the state machine', () => {
  const table: Record<TopupStatus, TopupStatus[]> = {
    pending: ['succeeded', 'failed', 'amount_mismatch'],
    amount_mismatch: ['succeeded', 'refunded'],
    succeeded: [],
    failed: [],
    refunded: [],
  };

  it('allows exactly the documented transitions and nothing out of a terminal state', () => {
    for (const from of TOPUP_STATUSES) {
      for (const to of TOPUP_STATUSES) expect(canTransition(from, to), `${from} -> ${to}`).toBe(table[from].includes(to));
      expect(isTerminal(from)).toBe(table[from].length === 0);
    }
  });
});
