import type { DocumentClient } from '../aws/dynamodb';
import type { TransactItem } from '../aws/dynamodb';
import { ConditionsFailed, MAX_TRANSACT_ITEMS, TransactionTooLarge, transact } from '../aws/store';
import type { Outcome } from '../http/outcome';
import type { Clock } from '../kernel/clock';
import { AppError } from '../kernel/errors';
import type { IdGenerator } from '../kernel/ids';
import { getItem } from '../aws/store';
import { IdempotencyStore, type AnswerRef, type IdempotencyContext } from './idempotency';
import { ledgerOfAnyConsumer, type FactsContext } from './facts';
import { LEGACY_TRANSACTIONS, ledgerKeys } from './keys';
import { legOut, pendingJson, toPending, toTransaction, transactionJson, type AccountFacts, type LedgerFacts } from './records';
import type { Role } from './posting-plan';
import { diagnose, REMEMBERED_REFUSALS, type Diagnose } from './refusals';
import { sweepShards } from './shards';
import type { LegInput, Transaction } from './schemas';

/** What every ledger operation shares: the table, time, ids, idempotency records and fact caches. */

export interface LedgerDeps {
  client: DocumentClient;
  table: string;
  clock: Clock;
  ids: IdGenerator;
  /** How long an idempotency key is remembered (default 24 h). */
  idempotencyRetentionSeconds?: number;
  /** The feed holds back transactions younger than this, so a late commit cannot land behind a cursor. */
  feedSettleMs?: number;
  /** The store's backoff sleep (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
}

export interface LedgerContext extends FactsContext {
  deps: LedgerDeps;
  idempotency: IdempotencyStore;
  /** Ownership of ledgers and the identity of accounts never change: cached per process. */
  ledgerFacts: Map<string, LedgerFacts>;
  accountFacts: Map<string, AccountFacts>;
}

export function createLedgerContext(deps: LedgerDeps): LedgerContext {
  const context: LedgerContext = {
    deps,
    idempotency: new IdempotencyStore(deps, deps.idempotencyRetentionSeconds ?? 24 * 3600, (ref) => renderAnswer(context, ref)),
    ledgerFacts: new Map(),
    accountFacts: new Map(),
  };
  return context;
}

/**
 * The bytes of a remembered answer, rendered again from the item it wrote: a transaction as posted
 * (a later reversal sets its `reversed_by`, which the first answer did not have), a pending as
 * reserved or as resolved (resolution is final).
 */
async function renderAnswer(context: LedgerContext, ref: AnswerRef): Promise<string> {
  const { deps } = context;
  const [kind, id, ledgerId] = ref.split(' ') as [string, string, string | undefined];
  if (kind === 'transaction') {
    // A ref written before it named the ledger is a transaction of its own partition.
    const layout = ledgerId === undefined ? LEGACY_TRANSACTIONS : await ledgerOfAnyConsumer(context, ledgerId);
    const item = await getItem(deps, ledgerKeys.transaction(layout, id));
    if (!item) throw new Error(`idempotency record refers to a missing transaction ${id}`);
    return transactionJson({ ...toTransaction(item), reversed_by: null });
  }
  const item = await getItem(deps, ledgerKeys.pending(id));
  if (!item) throw new Error(`idempotency record refers to a missing pending ${id}`);
  const pending = toPending(item);
  return pendingJson(kind === 'pending_created' ? { ...pending, status: 'pending', transaction_id: null, resolved_at: null } : pending);
}

export interface BuiltWrite {
  items: TransactItem[];
  roles: Role[];
  status: number;
  /** The answer's exact bytes. */
  body: string;
  /** What the answer is rendered from, so the idempotency record need not copy the body. */
  ref?: AnswerRef;
  diagnose?: Diagnose;
}

/**
 * Runs a write once per Idempotency-Key: its items and the key's record in ONE transaction, so a
 * replay returns the stored bytes and a state-dependent refusal is remembered like a success.
 */
export async function idempotent(context: LedgerContext, idem: IdempotencyContext | undefined, build: (now: Date) => Promise<BuiltWrite>): Promise<Outcome> {
  const now = context.deps.clock.now();
  try {
    const built = await build(now);
    const body = built.body;
    const items = idem ? [context.idempotency.recordItem(idem, built.status, built.ref ? { ref: built.ref } : { body }, now), ...built.items] : built.items;
    const roles: Role[] = idem ? [{ kind: 'idempotency' }, ...built.roles] : built.roles;
    // Committed within COMMIT_DEADLINE_MS of `now` or not at all: closed periods rely on it.
    const commit = () => transact(context.deps, items, { deadlineMs: COMMIT_DEADLINE_MS - (context.deps.clock.now().getTime() - now.getTime()) });
    try {
      try {
        await commit();
      } catch (error) {
        // A debit the own item of a sharded account cannot cover may be covered once its shards
        // are swept in: sweep, then try the same write once more (it wrote nothing the first time).
        if (!(error instanceof ConditionsFailed) || !(await sweepShortAccounts(context, error, roles, now))) throw error;
        await commit();
      }
    } catch (error) {
      if (error instanceof TransactionTooLarge) {
        throw new AppError('invalid', `This operation needs ${error.size} writes; one transaction holds at most ${MAX_TRANSACT_ITEMS}.`);
      }
      if (!(error instanceof ConditionsFailed)) throw error;
      throw diagnose(error, roles, built.diagnose);
    }
    return { status: built.status, body, replayed: false };
  } catch (error) {
    if (!idem) throw error;
    // A refusal may be this key's own earlier success seen from after it (the pending it posted
    // is no longer open): an existing record answers first.
    const replay = await context.idempotency.replay(idem, now);
    if (replay) return replay;
    if (error instanceof AppError && REMEMBERED_REFUSALS.has(error.code)) return context.idempotency.rememberRefusal(idem, error, now);
    throw error;
  }
}

/**
 * Sweeps the shards of every sharded account whose own item refused a debit for want of money
 * (not for its status or version, which a sweep cannot change). Returns whether there was one:
 * then the write is worth trying again even if this sweep found the shards empty, since a
 * concurrent sweep may have just moved their money into the own item.
 */
async function sweepShortAccounts(context: LedgerContext, error: ConditionsFailed, roles: readonly Role[], now: Date): Promise<boolean> {
  let short = false;
  for (const failure of error.failures) {
    const role = roles[failure.index];
    if (role?.kind === 'idempotency') return false;
    if (role?.kind !== 'account' || role.shards === undefined || role.shard !== undefined) continue;
    if (failure.item?.status !== 'active' || (role.version !== undefined && Number(failure.item.version) !== role.version)) continue;
    await sweepShards(context.deps, role.accountId, role.shards, now);
    short = true;
  }
  return short;
}

const MAX_FUTURE_EFFECTIVE_MS = 60_000;

/**
 * Closed periods without reading the ledger item on every posting. A period closes only through a
 * time at least PERIOD_CLOSE_LAG_MS ago, and a write commits within COMMIT_DEADLINE_MS of taking
 * its `now` or not at all (a Lambda's timeout is shorter still); so a posting effective now cannot
 * land in a closed period, and only one with an explicit `effective_at` carries the check on the
 * ledger item. Checking it on every posting would cost two write units each and make the ledger
 * item a hot item of its own, capping a whole ledger near 500 postings/s (docs/performance.md).
 */
export const PERIOD_CLOSE_LAG_MS = 60_000;
export const COMMIT_DEADLINE_MS = 15_000;

/** The effective date a posting's period check needs: only an explicit one (see PERIOD_CLOSE_LAG_MS). */
export const periodCheckOf = (requested: string | undefined, effective: string): string | undefined => (requested === undefined ? undefined : effective);

/** The effective date of a posting: now, or a past date the caller names. Refuses: invalid (the future). */
export function effectiveAt(requested: string | undefined, now: Date): string {
  if (!requested) return now.toISOString();
  const at = new Date(requested);
  if (at.getTime() > now.getTime() + MAX_FUTURE_EFFECTIVE_MS) throw new AppError('invalid', 'effective_at may not be in the future.');
  return at.toISOString();
}

export function newTransaction(
  context: LedgerContext,
  ledgerId: string,
  input: { type: string; metadata?: Record<string, string>; reference_id?: string },
  legs: LegInput[],
  facts: Map<string, AccountFacts>,
  effective: string,
  now: Date,
  links: { exchange: boolean; pendingId: string | null; reverses?: string },
): Transaction {
  return {
    id: context.deps.ids(),
    ledger_id: ledgerId,
    type: input.type,
    status: 'posted',
    reference_id: input.reference_id ?? null,
    metadata: input.metadata ?? {},
    exchange_id: links.exchange ? context.deps.ids() : null,
    reverses_txn_id: links.reverses ?? null,
    reversed_by: null,
    pending_id: links.pendingId,
    legs: legs.map((leg) => legOut(leg, facts)),
    effective_at: effective,
    created_at: now.toISOString(),
  };
}
