import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../local/platform';
import { ManualClock } from '../../shared/kernel/clock';
import { uuidv7 } from '../../shared/kernel/ids';
import { TENANT_SCOPES } from '../../shared/wallet/auth/scopes';
import { injectFaults, type FaultBoundary } from '../../shared/wallet/saga/faults';
import { SWEEP_AFTER_MS } from '../../shared/wallet/saga/key-record';
import { apiKeyFor, staffToken } from '../support/credentials';
import { apiClient, type Api } from '../support/http';
import { startTestPlatform, type CallResult } from '../support/platform';
import { openBank, openShop, picker, SAGAS, type World } from '../support/saga-scenarios';
import { RECONCILIATION_GRACE_MS } from '../../shared/wallet/reconciliation/reconcile';

/**
 * Every money saga crashed and raced at each step boundary, over HTTP, with fast-check choosing the
 * interleaving: which saga, at which boundary (before the ledger, after it, with the commit built,
 * with it written), whether the process "dies" there, which state change on the same entities
 * lands there, and who finishes the work (the client's retry with the same key, or the sweeper).
 * Sagas a worker runs (a period's charge, a hold's or an order's expiry) are crashed and raced the
 * same way and finished by the worker's next run. After every run: the key answers the same bytes
 * on replay, no answer is a 5xx once recovered, the ledger nets to zero in every commodity, stock
 * equals its movements with `reserved` equal to the units open orders hold, and reconciliation
 * finds no ledger transaction without its wallet record and no record without its transaction. The seed is printed; `SAGA_FAULTS_SEED=<seed>` replays a run exactly
 * (with `SAGA_FAULTS_PATH` from fast-check's report for the shrunk case). `npm run soak:sagas` runs
 * many more.
 */

const seed = Number(process.env.SAGA_FAULTS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const runs = Number(process.env.SAGA_FAULTS_RUNS ?? 24);
const clock = new ManualClock(new Date());
const BOUNDARIES: FaultBoundary[] = ['beforeLedger', 'afterLedger', 'beforeCommit', 'afterCommit'];

let platform: Platform;
let world: World;

/**
 * The harness's API key lives a year of the world's clock, which the charge sagas move a month or
 * more a run: before a run, a key older than KEY_RENEWED_AFTER_MS is replaced by one issued on that
 * clock (a soak of hundreds of runs moves it years).
 */
const KEY_RENEWED_AFTER_MS = 300 * 86_400_000;
let apiKey: string;
let keyIssuedAt: number;

async function renewOldKey(): Promise<void> {
  if (clock.now().getTime() - keyIssuedAt < KEY_RENEWED_AFTER_MS) return;
  apiKey = await apiKeyFor(platform, world.tenantId, [...TENANT_SCOPES], { env: 'sandbox', clock });
  keyIssuedAt = clock.now().getTime();
  world.apiKey = apiKey;
}

beforeAll(async () => {
  platform = await startTestPlatform({ clock });
  // The harness drives the queues and schedules itself: a background delivery or tick would run a
  // saga outside the window its faults are injected in.
  await platform.queues.stop();
  await platform.scheduler.stop();
  const staff = await staffToken(platform, { role: 'platform' });
  const admin = apiClient(platform.urls.public);
  const tenant = await admin('POST', '/v1/tenants', { token: staff, key: uuidv7(), body: { name: 'Fault harness', currency: 'USD' } });
  expect(tenant.status, tenant.text).toBe(201);
  apiKey = await apiKeyFor(platform, tenant.body.id, [...TENANT_SCOPES], { env: 'sandbox', clock });
  keyIssuedAt = clock.now().getTime();
  const api: Api = apiClient(platform.urls.public, () => apiKey);
  expect((await api('PUT', '/v1/fee_plan', { body: { p2p: { bps: 100, flat: 0, min_fee: 0 }, payment: { bps: 200, flat: 0, min_fee: 0 }, commission: { bps: 300, flat: 0, min_fee: 0 } } })).status).toBe(200);
  const bankId = await openBank({ api, clock }, platform, 1_000_000_000);
  const partial = { platform, api, tenantId: tenant.body.id as string, apiKey, bankId, clock };
  world = { ...partial, shop: await openShop(partial) };
});

afterAll(async () => {
  await platform?.stop();
});

interface Interleaving {
  saga: string;
  boundary: FaultBoundary;
  crash: boolean;
  race: number | null;
  recovery: 'retry' | 'sweeper';
  /** The values the race makes up (a price, a rate), drawn with the rest so the seed replays them. */
  draws: number[];
}

/** `SAGA_FAULTS_SAGAS=refund,orderPay` narrows a run to some sagas (a soak of one, or a failure's). */
const chosenSagas = process.env.SAGA_FAULTS_SAGAS ? process.env.SAGA_FAULTS_SAGAS.split(',') : Object.keys(SAGAS);

const interleavings = fc
  .constantFrom(...chosenSagas)
  .chain((saga) => {
    const chosen = SAGAS[saga]!;
    const boundaries = chosen.kind === 'worker' ? chosen.boundaries : BOUNDARIES;
    return fc.record({
      saga: fc.constant(saga),
      boundary: fc.constantFrom(...boundaries),
      crash: fc.boolean(),
      race: chosen.races.length === 0 ? fc.constant(null) : fc.option(fc.nat({ max: chosen.races.length - 1 }), { nil: null }),
      recovery: fc.constantFrom<'retry' | 'sweeper'>('retry', 'sweeper'),
      draws: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
    });
  });

/** What one run saw: the answers of a request saga's key (first, recovered, replayed), none for a worker's. */
interface Seen {
  /** The fault point was reached (the crash or race happened): a harness whose faults never fire proves nothing. */
  fired: boolean;
  first?: CallResult;
  recovered?: CallResult;
  replay?: CallResult;
}

/** Runs the saga once under the interleaving, crash and race included, then lets it be finished. */
async function runOnce(chosen: Interleaving): Promise<Seen> {
  const saga = SAGAS[chosen.saga]!;
  if (process.env.SAGA_FAULTS_TRACE) console.info(`run: ${JSON.stringify(chosen)}`);
  await renewOldKey();
  const entities = await saga.setup(world);
  let fired = false;
  const remove = injectFaults(async (operation, boundary) => {
    if (process.env.SAGA_FAULTS_TRACE) console.info(`fault point: ${operation} ${boundary}`);
    if (fired || operation !== saga.operation || boundary !== chosen.boundary) return;
    fired = true;
    if (chosen.race !== null) await saga.races[chosen.race]!.run(world, entities, picker(chosen.draws));
    if (chosen.crash) throw new Error(`injected crash at ${boundary} of ${operation}`);
  });
  if (saga.kind === 'worker') {
    // A queued message is delivered once its delay passes; a crash leaves it for another delivery.
    const runWorker = saga.worker === 'queue' ? async () => (clock.advance(2_000), await platform.queues.drain()) : () => platform.scheduler.run(saga.worker);
    try {
      await Promise.resolve(runWorker()).catch(() => undefined);
    } finally {
      remove();
    }
    // The next run (or the message's next delivery, past its visibility timeout) finishes what the
    // crash left; the sweeper runs too, as it would.
    clock.advance(SWEEP_AFTER_MS + 15_000);
    await runWorker();
    await platform.scheduler.run('walletSweepOperations');
    await runWorker();
    return { fired };
  }
  const request = saga.request(world, entities);
  const key = uuidv7();
  const send = () => world.api(request.method, request.path, { key, body: request.body, ...(request.token ? { token: request.token } : {}) });
  let first: CallResult;
  try {
    first = await send();
  } finally {
    remove();
  }
  if (chosen.recovery === 'sweeper') {
    clock.advance(SWEEP_AFTER_MS + 15_000);
    await platform.scheduler.run('walletSweepOperations');
  }
  const recovered = await send();
  const replay = await send();
  return { fired, first, recovered, replay };
}

/** Reconciliation, past its grace: every ledger transaction has its wallet record and every money record its transaction. */
async function expectNoOrphan(label: string): Promise<void> {
  clock.advance(RECONCILIATION_GRACE_MS + 60_000);
  await platform.scheduler.run('walletReconcileLedgers');
  const report = await world.api('GET', '/v1/ledger/reconciliation');
  expect(report.status, report.text).toBe(200);
  expect(report.body.orphans, `${label}: ${report.text}`).toEqual([]);
}

/** Every commodity of the tenant's ledger nets to zero. */
async function expectLedgerNetsToZero(): Promise<void> {
  const summary = await world.api('GET', '/v1/ledger/summary');
  expect(summary.status, summary.text).toBe(200);
  const net = new Map<string, number>();
  for (const row of summary.body.rows as { commodity: string; balance: number }[]) net.set(row.commodity, (net.get(row.commodity) ?? 0) + row.balance);
  for (const [commodity, balance] of net) expect(balance, `${commodity} nets to zero`).toBe(0);
}

/** The variant's counts are its newest movement's, and `reserved` is what open orders hold. */
async function expectStockEqualsMovements(): Promise<void> {
  const { clientId, offeringId, variantId } = world.shop;
  const variant = (await world.api('GET', `/v1/clients/${clientId}/offerings/${offeringId}`)).body.variants.find((v: { id: string }) => v.id === variantId);
  const movements = (await world.api('GET', `/v1/clients/${clientId}/stock_movements?limit=1`)).body.data as { variant_id: string; on_hand_after: number; reserved_after: number }[];
  const newest = movements.find((m) => m.variant_id === variantId);
  if (newest) expect({ on_hand: variant.inventory.on_hand, reserved: variant.inventory.reserved }).toEqual({ on_hand: newest.on_hand_after, reserved: newest.reserved_after });
  let held = 0;
  // `open` lists the orders being paid too: both hold their units.
  let cursor: string | null = null;
  do {
    const page: CallResult<{ data: { lines: { variant_id: string; quantity: number }[] }[]; next_cursor: string | null }> = await world.api(
      'GET',
      `/v1/orders?status=open&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(page.status, page.text).toBe(200);
    for (const order of page.body.data) for (const line of order.lines) if (line.variant_id === variantId) held += line.quantity;
    cursor = page.body.next_cursor;
  } while (cursor);
  if (variant.inventory.track_inventory) expect(variant.inventory.reserved, 'reserved is what open orders hold').toBe(held);
  expect(variant.inventory.on_hand).toBeGreaterThanOrEqual(0);
}

describe('every money saga, crashed and raced at each step', () => {
  it(`keeps its invariants over ${runs} interleavings (seed ${seed})`, async () => {
    // Printed, so a failing run can be replayed: SAGA_FAULTS_SEED=<seed>.
    console.info(`saga fault harness: seed ${seed}, ${runs} runs (SAGA_FAULTS_SEED=${seed} replays them)`);
    await fc.assert(
      fc.asyncProperty(interleavings, async (chosen) => {
        const started = performance.now();
        const { fired, first, recovered, replay } = await runOnce(chosen);
        const label = JSON.stringify(chosen);
        const ran = performance.now();
        expect(fired, `${label}: the saga reached its fault point`).toBe(true);
        if (first && recovered && replay) {
          expect(recovered.status, `${label} recovered: ${recovered.text}`).toBeLessThan(500);
          expect(replay.text, `${label} replays the same bytes`).toBe(recovered.text);
          if (first.status < 500) expect(recovered.text, `${label} the first answer stands`).toBe(first.text);
        }
        await expectLedgerNetsToZero();
        await expectStockEqualsMovements();
        await expectNoOrphan(label);
        if (process.env.SAGA_FAULTS_TRACE) console.info(`timing: run ${Math.round(ran - started)} ms, checks ${Math.round(performance.now() - ran)} ms`);
      }),
      { seed, numRuns: runs, endOnFailure: true, ...(process.env.SAGA_FAULTS_PATH ? { path: process.env.SAGA_FAULTS_PATH } : {}) },
    );
  }, 120_000 + runs * 20_000);
});
