import { getItem, isConditionalCheckFailed, putItem } from '../../aws/store';
import type { EventEnvelope } from '../../events/outbox';
import { EVENT_RETENTION_DAYS } from '../../events/outbox';
import { METRIC, recordMetric } from '../../kernel/metrics';
import { logger } from '../../kernel/log';
import type { Transaction } from '../../ledger-client/contract';
import type { WalletDeps } from '../deps';
import { allTenantRecords } from '../tenancy/tenants';
import { claimsOf, moneyEvents, reread, unbackedClaims, type Seen } from './claims';
import { reconciliationKeys } from './keys';
import { CLOCK_SKEW_MS, unexplainedTransactions } from './matcher';
import { countOpenOrphans, listOrphans, openOrphans, recordOrphan, toReconciliationState, transactionOrphan, unlistOrphans, type ReconciliationState, type StoredOrphan } from './orphans';
import type { TenantRecord } from '../tenancy/records';

/**
 * Reconciliation, continuously (docs/reconciliation.md): per tenant, every ledger transaction is
 * matched to the wallet record that explains it (./matcher.ts), and every money record written to
 * the transaction it names (./claims.ts), each side from its stored mark onward. What stays
 * unmatched past the grace is an orphan, stored under the tenant (./orphans.ts) and checked again
 * on every run until it is matched (a saga finished late) and leaves the list. The open orphans
 * of every tenant, summed, are a CloudWatch metric an alarm watches.
 */

/** The metric the worker writes and the stack's alarm watches (shared/workers.ts). */
export const ORPHANS_METRIC = METRIC.reconciliationOrphans;

/**
 * How long a transaction or record may stand unmatched before it is an orphan rather than a saga
 * in flight. A money operation posts to the ledger first and commits its record after; a crash
 * between the two is finished by the client's retry, or by the sweeper once the operation is
 * SWEEP_AFTER_MS (30 s) old, on its next walk (every minute, walks of about a second), or for a
 * subscription charge by the next billing run (every minute). Five minutes is that twice over, with
 * room for one failed sweep; what is still unmatched then is not in flight, and the alarm may page.
 */
export const RECONCILIATION_GRACE_MS = 5 * 60_000;

/** Feed events read per ledger request (the ledger's maximum). */
const FEED_PAGE = 500;
/** The stretch of event history read before the records' mark moves. */
const RECORD_STRETCH_MS = 15 * 60_000;
/** The longest stretch read after quiet ones. */
const QUIET_STRETCH_MAX_MS = 24 * 3_600_000;
/** Money events whose records are read and checked at once. */
const CLAIM_BATCH = 100;
/** Open orphans checked again per tenant and run, newest first (the likeliest to be matched now). */
const RECHECK_LIMIT = 500;
/** Tenants reconciled at once. */
const TENANT_CONCURRENCY = 4;
/** A run starts no ledger page or record stretch after this long: the worker's timeout (300 s) less room to save and report. */
export const RUN_BUDGET_MS = 240_000;

type State = ReconciliationState;

export interface ReconcileResult {
  tenants: number;
  /** Ledger transactions matched in this run. */
  transactions_checked: number;
  /** Orphans newly listed in this run. */
  found: number;
  /** Orphans matched since and removed in this run. */
  resolved: number;
  /** Open orphans of every tenant after the run: the metric. */
  orphans: number;
}

interface TenantOutcome {
  checked: number;
  found: number;
  resolved: number;
  open: number;
}

/**
 * One run over every tenant: matches both sides from their marks, lists new orphans, removes
 * matched ones, and writes the open orphans' total as the ReconciliationOrphans metric. A tenant
 * whose run fails (the ledger is unavailable) keeps its marks for the next run; the run throws
 * after the others are done, so the function's errors show it.
 */
export async function reconcileLedgers(runtime: WalletDeps, options: { budgetMs?: number } = {}): Promise<ReconcileResult> {
  const stopAt = Date.now() + (options.budgetMs ?? RUN_BUDGET_MS);
  const tenants = await allTenantRecords(runtime);
  const result: ReconcileResult = { tenants: tenants.length, transactions_checked: 0, found: 0, resolved: 0, orphans: 0 };
  const failures: string[] = [];
  let next = 0;
  const lane = async () => {
    while (next < tenants.length) {
      const tenant = tenants[next++]!;
      try {
        const outcome = await reconcileTenant(runtime, tenant, stopAt);
        result.transactions_checked += outcome.checked;
        result.found += outcome.found;
        result.resolved += outcome.resolved;
        result.orphans += outcome.open;
      } catch (error) {
        failures.push(tenant.id);
        logger.error('reconciliation of a tenant failed; its marks stay for the next run', { tenant_id: tenant.id, error: error as Error });
        const state = await readState(runtime, tenant.id).catch(() => undefined);
        result.orphans += state?.open_orphans ?? 0;
      }
    }
  };
  await Promise.all(Array.from({ length: TENANT_CONCURRENCY }, lane));
  recordMetric(METRIC.reconciliationOrphans, 'Count', result.orphans, {}, runtime.clock.now());
  if (failures.length > 0) throw new Error(`reconciliation failed for ${failures.length} tenant(s): ${failures.join(', ')}`);
  return result;
}

async function reconcileTenant(runtime: WalletDeps, tenant: TenantRecord, stopAt: number): Promise<TenantOutcome> {
  const now = runtime.clock.now();
  const detectedAt = now.toISOString();
  const horizon = new Date(now.getTime() - RECONCILIATION_GRACE_MS).toISOString();
  const ledger = runtime.ledger();
  const outcome: TenantOutcome = { checked: 0, found: 0, resolved: 0, open: 0 };
  let state: State | undefined = await readState(runtime, tenant.id);
  const before = state.open_orphans;
  const save = async (change: Partial<State>) => (state = state && (await saveState(runtime, tenant.id, state, change, detectedAt)));

  // Orphans listed before, checked again: a saga finished since, or a record came late.
  const open = await openOrphans(runtime, tenant.id, RECHECK_LIMIT);
  outcome.resolved = await unlistOrphans(runtime, await matchedNow(runtime, tenant, open));

  // The wallet side: money records written before checked_through, stretch by stretch from the
  // mark, after every feed page (so `seen` holds the transactions they name, and stays small).
  const seen = new Map<string, Seen>();
  const retained = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  // A quiet stretch makes the next one longer (up to a day), so a tenant idle for days costs a
  // few reads, not one per quarter hour; the first money event brings it back to a quarter hour.
  let stretchMs = RECORD_STRETCH_MS;
  const checkRecords = async () => {
    while (state?.checked_through && Date.now() < stopAt) {
      const from = state.records_through ?? later(tenant.created_at, retained)!;
      if (from >= state.checked_through) return;
      const to = earlier(new Date(Date.parse(from) + stretchMs).toISOString(), state.checked_through);
      let read = 0;
      let batch: EventEnvelope[] = [];
      const checkBatch = async () => {
        const claims = await claimsOf(runtime, batch, tenant.currency);
        const verdicts = await unbackedClaims(ledger, tenant.ledger_id, claims, seen);
        const orphans = claims.flatMap((claim) => {
          const reason = verdicts.get(claim.key);
          return reason ? [recordOrphan(tenant.id, claim, reason, detectedAt)] : [];
        });
        outcome.found += await listOrphans(runtime, tenant.id, orphans);
        batch = [];
      };
      // From a little before the mark: an event's id comes from its writer's clock, not ours, and
      // one read twice is listed once.
      const overlap = new Date(Date.parse(from) - CLOCK_SKEW_MS).toISOString();
      for await (const envelope of moneyEvents(runtime, tenant.id, overlap, to)) {
        read += 1;
        batch.push(envelope);
        if (batch.length === CLAIM_BATCH) await checkBatch();
      }
      if (batch.length > 0) await checkBatch();
      await save({ records_through: to });
      stretchMs = read === 0 ? Math.min(stretchMs * 4, QUIET_STRETCH_MAX_MS) : RECORD_STRETCH_MS;
      // A later stretch's records name transactions from about its own time on (one older is read by id).
      const forgotten = new Date(Date.parse(to) - 2 * CLOCK_SKEW_MS).toISOString();
      for (const [id, transaction] of seen) if (transaction.created_at < forgotten) seen.delete(id);
    }
  };

  // The ledger side: the feed from the mark, up to the horizon (younger transactions are pending).
  while (state && Date.now() < stopAt) {
    const page = await ledger.listEvents(tenant.ledger_id, { ...(state.cursor ? { cursor: state.cursor } : {}), limit: FEED_PAGE });
    const settled: Transaction[] = [];
    for (const event of page.data) {
      if (event.transaction.created_at >= horizon) break;
      settled.push(event.transaction);
    }
    // The feed ran out (it holds back only its last seconds), or reached the pending ones: checked up to the horizon.
    // An empty page ends it whatever has_more says (a ledger before has_more meant "more now" said true on every page).
    const caughtUp = settled.length < page.data.length || !page.has_more || page.data.length === 0;
    if (settled.length > 0) {
      const verdicts = await unexplainedTransactions(runtime, tenant.id, settled);
      const orphans = settled.flatMap((transaction) => {
        const reason = verdicts.get(transaction.id);
        return reason ? [transactionOrphan(tenant.id, transaction, reason, detectedAt)] : [];
      });
      outcome.found += await listOrphans(runtime, tenant.id, orphans);
      for (const { id, type, reference_id, created_at } of settled) seen.set(id, { type, reference_id, created_at });
      outcome.checked += settled.length;
    }
    const last = settled[settled.length - 1];
    const checkedThrough = caughtUp ? horizon : (last?.created_at ?? state.checked_through);
    if (last || checkedThrough !== state.checked_through) {
      await save({
        ...(last ? { cursor: last.id, transactions_checked: state.transactions_checked + settled.length } : {}),
        checked_through: later(state.checked_through, checkedThrough),
      });
    }
    await checkRecords();
    if (caughtUp) break;
  }
  // Records left behind by an earlier run that stopped at its budget.
  await checkRecords();

  if (!state) return { ...outcome, open: before };
  // Counted, not added up: exact whatever another run did at the same time.
  outcome.open = before > 0 || open.length > 0 || outcome.found > 0 ? await countOpenOrphans(runtime, tenant.id) : 0;
  if (outcome.open !== state.open_orphans) await save({ open_orphans: outcome.open });
  if (outcome.found > 0) logger.warn('reconciliation found orphans', { tenant_id: tenant.id, found: outcome.found, open: outcome.open });
  if (outcome.resolved > 0) logger.info('reconciliation orphans matched since', { tenant_id: tenant.id, resolved: outcome.resolved, open: outcome.open });
  return outcome;
}

/** The keys of open orphans that are matched now. */
async function matchedNow(runtime: WalletDeps, tenant: TenantRecord, open: readonly StoredOrphan[]): Promise<{ pk: string; sk: string }[]> {
  if (open.length === 0) return [];
  const transactions = open.flatMap((stored) => (stored.transaction ? [stored.transaction] : []));
  const claims = open.flatMap((stored) => (stored.claim ? [stored.claim] : []));
  const [unexplained, unbacked] = await Promise.all([
    unexplainedTransactions(runtime, tenant.id, transactions),
    reread(runtime, claims).then((now) => unbackedClaims(runtime.ledger(), tenant.ledger_id, now, new Map())),
  ]);
  return open
    .filter((stored) => (stored.transaction ? !unexplained.has(stored.transaction.id) : stored.claim ? !unbacked.has(stored.claim.key) : false))
    .map((stored) => stored.key);
}

async function readState(runtime: WalletDeps, tenantId: string): Promise<State> {
  return toReconciliationState((await getItem(runtime, reconciliationKeys.state(tenantId))) ?? {});
}

/** The state with `change`, saved unless another run saved since it was read (then undefined: that run goes on). */
async function saveState(runtime: WalletDeps, tenantId: string, before: State, change: Partial<State>, at: string): Promise<State | undefined> {
  const after: State = { ...before, ...change, version: before.version + 1 };
  try {
    await putItem(
      runtime,
      { ...reconciliationKeys.state(tenantId), entity: 'reconciliation_state', tenant_id: tenantId, ...after, updated_at: at },
      before.version === 0 ? { condition: 'attribute_not_exists(pk)' } : { condition: 'version = :version', values: { ':version': before.version } },
    );
    return after;
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    logger.info('another reconciliation run moved this tenant on; leaving it to that run', { tenant_id: tenantId });
    return undefined;
  }
}

const later = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a > b ? a : b);
const earlier = (a: string, b: string): string => (a < b ? a : b);
